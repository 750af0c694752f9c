import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { createClaimedJobs, Jobs, PeriodicPass, PeriodicPasses } from '../../../platform/queue/index.js';
import { nextDueAfterClaim } from '../domain/sync-schedule.js';
import { SyncStateRepository } from '../infrastructure/sync-state.repository.js';
import { SYNC_ANALYTICS_JOB } from './job-types.js';
import { MetricsSource } from './ports/metrics-source.js';
import { outages } from '../../../platform/health/index.js';

const CLAIM_BATCH = 200;

/**
 * Starts the periodic syncs. In every process that consumes jobs, a timer lists the live
 * connections, claims the due ones (a conditional UPDATE of `next_due_at`, see
 * SyncStateRepository.claimDue) and creates their jobs in the claim's transaction: however many
 * processes tick, each connection gets one job per period, and a claim is never lost without its job.
 */
@Injectable()
export class SyncScheduler {
  private readonly logger = new Logger('Analytics');
  private readonly pass: PeriodicPass;

  constructor(
    private readonly config: AppConfig,
    @InjectDataSource() private readonly ds: DataSource,
    private readonly source: MetricsSource,
    private readonly states: SyncStateRepository,
    private readonly jobs: Jobs,
    passes: PeriodicPasses,
  ) {
    this.pass = passes.register({ name: 'analytics.sync', everyMs: config.analytics.schedulerTickMs, pass: (now) => this.schedule(now) });
  }

  /** One pass; a pass still running is joined rather than doubled. Answers the jobs it created. */
  tick(now = new Date()): Promise<number> {
    return this.pass.run(now);
  }

  private async schedule(now: Date): Promise<number> {
    try {
      const live = await this.source.liveConnections();
      if (live.length === 0) return 0;
      await this.states.ensure(this.ds.manager, live, now);
      const created = await createClaimedJobs(this.ds, this.jobs, async (tx) =>
        (await this.states.claimDue(tx, live, now, nextDueAfterClaim(now, this.config.analytics.syncIntervalMs), CLAIM_BATCH)).map((c) => ({
          workspaceId: c.workspaceId, jobType: SYNC_ANALYTICS_JOB, payload: { platforms: [c.platform], trigger: 'scheduled' as const },
        })),
      );
      if (created > 0) this.logger.log({ msg: 'analytics syncs scheduled', count: created });
      return created;
    } catch (err) {
      if (!(await outages.covers(err))) this.logger.warn({ msg: 'analytics scheduling failed', err: String(err) });
      return 0;
    }
  }
}
