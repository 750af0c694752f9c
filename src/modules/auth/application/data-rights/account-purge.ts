import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../../config/index.js';
import { inTransaction } from '../../../../platform/database/index.js';
import { DataContributors } from '../../../../platform/data-rights/index.js';
import { PeriodicPass, PeriodicPasses } from '../../../../platform/queue/index.js';
import { Storage } from '../../../../platform/storage/index.js';
import { planAccountDeletion } from '../../domain/data-rights.js';
import { DataRightsRepository } from '../../infrastructure/data-rights.repository.js';
import { outages } from '../../../../platform/health/index.js';

const CLAIM_BATCH = 20;
/** A claimed purge not finished in this time is claimed again by the next pass (the purge is idempotent). */
const PURGE_LEASE_MS = 10 * 60 * 1000;

/**
 * The periodic pass on the workers that erases accounts whose grace period ended, and the archives
 * of exports past their life. Purging an account: claim it (signing in can no longer cancel it),
 * delete the stored files of the workspaces it alone is in (each context names its own), then in
 * one transaction let each context forget what does not cascade and delete the workspaces and the
 * user (every other row cascades from them). Not a job: a job row belongs to a workspace, which
 * this deletes; the claim's lease stands in for the job's retries.
 */
@Injectable()
export class AccountPurge {
  private readonly logger = new Logger('DataRights');
  private readonly pass: PeriodicPass;

  constructor(
    private readonly config: AppConfig,
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: DataRightsRepository,
    private readonly contributors: DataContributors,
    private readonly storage: Storage,
    passes: PeriodicPasses,
  ) {
    this.pass = passes.register({ name: 'data-rights.purge', everyMs: config.dataRights.purgeTickMs, pass: (now) => this.sweep(now) });
  }

  /** One pass (a pass running is joined); answers the accounts purged. */
  tick(now = new Date()): Promise<number> {
    return this.pass.run(now);
  }

  private async sweep(now: Date): Promise<number> {
    let purged = 0;
    try {
      await this.expireExports(now);
      const due = await inTransaction(this.ds, (tx) => this.repo.claimDueDeletions(tx, now, new Date(now.getTime() + PURGE_LEASE_MS), CLAIM_BATCH));
      for (const userId of due) {
        await this.purge(userId);
        purged++;
      }
    } catch (err) {
      if (!(await outages.covers(err))) this.logger.warn({ msg: 'account purge pass failed', err: String(err) });
    }
    return purged;
  }

  /** Erases one claimed account; run twice, the second finds nothing left to do. */
  async purge(userId: string): Promise<void> {
    const plan = planAccountDeletion(await this.repo.membershipCounts(userId));
    // Someone joined a workspace it owned alone after the request: that workspace stays, it only leaves it.
    const workspaceIds = plan.ok ? plan.deleteWorkspaces : [];
    if (!plan.ok) this.logger.warn({ msg: 'purged account was the only owner of a shared workspace', user_id: userId, workspace_id: plan.blockedBy });
    const keys = new Set(await this.repo.archiveKeys(userId, workspaceIds));
    for (const workspaceId of workspaceIds) {
      for (const contributor of this.contributors.all()) for (const key of await contributor.mediaKeys(workspaceId)) keys.add(key);
    }
    for (const key of keys) await this.storage.delete(key);
    await inTransaction(this.ds, async (tx) => {
      if (!(await this.repo.isPurging(tx, userId))) return;
      for (const contributor of this.contributors.all()) await contributor.forget?.(tx, { userId, workspaceIds });
      await this.repo.deleteAccount(tx, userId, workspaceIds);
    });
    this.logger.log({ msg: 'account purged', user_id: userId, workspaces: workspaceIds.length, files: keys.size });
  }

  private async expireExports(now: Date): Promise<void> {
    for (const e of await this.repo.expiredExports(now, 100)) {
      if (e.archiveKey) await this.storage.delete(e.archiveKey);
      await this.repo.markExportExpired(e.id);
    }
  }
}
