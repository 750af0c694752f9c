import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../../../config/index.js';
import { createClaimedJobs, Jobs, PeriodicPass, PeriodicPasses } from '../../../../../platform/queue/index.js';
import { DomainClaimsRepository } from '../../infrastructure/domain-claims.repository.js';
import { VERIFY_CUSTOM_DOMAIN_JOB } from './job-types.js';
import { outages } from '../../../../../platform/health/index.js';

const CLAIM_BATCH = 200;

/**
 * Starts the periodic domain checks, as analytics starts its syncs: in every process that
 * consumes jobs, a timer claims the due claims (moving `next_check_at` on, see
 * DomainClaimsRepository.claimDue) and creates their jobs in the claim's transaction, so each due
 * check becomes one job however many processes tick. A job that never runs leaves its claim due
 * again when the lease ends.
 */
@Injectable()
export class DomainCheckScheduler {
  private readonly logger = new Logger('Branding');
  private readonly pass: PeriodicPass;

  constructor(
    private readonly config: AppConfig,
    @InjectDataSource() private readonly ds: DataSource,
    private readonly claims: DomainClaimsRepository,
    private readonly jobs: Jobs,
    passes: PeriodicPasses,
  ) {
    this.pass = passes.register({ name: 'branding.domain-checks', everyMs: config.domains.schedulerTickMs, pass: (now) => this.schedule(now) });
  }

  /** One pass; a pass still running is joined rather than doubled. Answers the jobs it created. */
  tick(now = new Date()): Promise<number> {
    return this.pass.run(now);
  }

  private async schedule(now: Date): Promise<number> {
    try {
      const lease = new Date(now.getTime() + Math.min(this.config.domains.pendingCheckMs, this.config.domains.verifiedCheckMs));
      const created = await createClaimedJobs(this.ds, this.jobs, async (tx) =>
        (await this.claims.claimDue(tx, now, lease, CLAIM_BATCH)).map((c) => ({
          workspaceId: c.workspaceId, jobType: VERIFY_CUSTOM_DOMAIN_JOB, payload: { token: c.token, trigger: 'scheduled' as const },
        })),
      );
      if (created > 0) this.logger.log({ msg: 'domain checks scheduled', count: created });
      return created;
    } catch (err) {
      if (!(await outages.covers(err))) this.logger.warn({ msg: 'domain check scheduling failed', err: String(err) });
      return 0;
    }
  }
}
