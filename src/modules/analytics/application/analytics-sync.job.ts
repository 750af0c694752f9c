import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, type Platform } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { JobHandler, type JobContext } from '../../../platform/queue/index.js';
import { CharactersFacade } from '../../characters/index.js';
import type { AccountMetrics, PublishedPost } from '../../publishing/index.js';
import { dayOf } from '../domain/date-range.js';
import { engagementRate } from '../domain/engagement.js';
import { retentionCutoffs } from '../domain/retention.js';
import { blockedAfterRateLimit, nextDueAfterClaim } from '../domain/sync-schedule.js';
import { AnalyticsRepository, type PostMetricsRow } from '../infrastructure/analytics.repository.js';
import { SyncStateRepository } from '../infrastructure/sync-state.repository.js';
import { SYNC_ANALYTICS_JOB } from './job-types.js';
import { MetricsSource } from './ports/metrics-source.js';

/** Posts published this long ago or less are read again at each sync; older ones keep their last numbers. */
export const METRICS_WINDOW_DAYS = 90;

/** How one connection's sync ended: synced, or the code that stopped it (`rate_limited` delays it). */
type Outcome = { status: 'synced'; posts: number; followers: number | null } | { status: 'skipped'; code: string };

/** The post rows of one account read: each published post the platform answered for. */
export function postRowsOf(posts: readonly PublishedPost[], read: AccountMetrics): PostMetricsRow[] {
  const byRemote = new Map(read.posts.map((p) => [p.remotePostId, p.metrics]));
  return posts.flatMap((post) => {
    const metrics = byRemote.get(post.remotePostId);
    if (!metrics) return [];
    return [{
      id: randomUUID(), scheduledPostId: post.scheduledPostId, contentId: post.contentId, characterId: post.characterId,
      platform: post.platform, accountId: read.accountId, remoteUrl: post.remoteUrl, publishedAt: post.publishedAt,
      metrics, engagementRate: engagementRate(metrics), simulated: read.simulated,
    }];
  });
}

/**
 * sync_analytics: for each connection it covers, reads the account's followers and its recent
 * posts' metrics through publishing, files them, then sets the characters' follower counts and
 * runs the retention sweep. Idempotent (every write is an upsert of the same read). A platform's
 * 429 blocks that connection until its Retry-After and the job still completes (`skipped:
 * 'rate_limited'`): retrying inside the job would only spend the platform's quota that publishing needs.
 */
@Injectable()
export class AnalyticsSyncJob {
  private readonly logger = new Logger('Analytics');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly source: MetricsSource,
    private readonly store: AnalyticsRepository,
    private readonly states: SyncStateRepository,
    private readonly characters: CharactersFacade,
    private readonly config: AppConfig,
  ) {}

  @JobHandler(SYNC_ANALYTICS_JOB)
  async run(ctx: JobContext<'sync_analytics'>): Promise<Record<string, unknown>> {
    const workspaceId = ctx.job.workspaceId;
    const platforms = ctx.job.payload.platforms ?? [...new Set((await this.source.connectionsOf(workspaceId)).map((c) => c.platform))];
    const outcomes: Partial<Record<Platform, Outcome>> = {};
    for (const [i, platform] of platforms.entries()) {
      outcomes[platform] = await this.syncConnection(workspaceId, platform);
      await ctx.progress(Math.round(((i + 1) / (platforms.length + 1)) * 100));
    }
    const all = Object.values(outcomes);
    const failed = all.filter((o) => o.status === 'skipped' && o.code !== 'rate_limited');
    if (all.length > 0 && failed.length === all.length && failed[0]?.status === 'skipped') {
      throw new AppError('upstream_failed', 'No connection of the workspace could be synced.', { platforms: outcomes });
    }
    await this.afterSync(workspaceId);
    const rateLimited = all.some((o) => o.status === 'skipped' && o.code === 'rate_limited');
    return { platforms: outcomes, ...(rateLimited ? { skipped: 'rate_limited' } : {}) };
  }

  private async syncConnection(workspaceId: string, platform: Platform): Promise<Outcome> {
    const now = new Date();
    let posts: PublishedPost[];
    let read: AccountMetrics;
    try {
      posts = await this.source.publishedPosts(workspaceId, { platform, since: new Date(now.getTime() - METRICS_WINDOW_DAYS * 86_400_000) });
      read = await this.source.readAccountMetrics(workspaceId, platform, posts.map((p) => p.remotePostId));
    } catch (err) {
      return this.recordFailure(workspaceId, platform, err, now);
    }
    const rows = postRowsOf(posts, read);
    const syncedAt = read.readAt ?? now;
    await inTransaction(this.ds, async (tx) => {
      if (read.followers !== null) {
        await this.store.upsertFollowerDay(tx, workspaceId, { platform, accountId: read.accountId, day: dayOf(syncedAt), followers: read.followers, simulated: read.simulated }, syncedAt);
      }
      await this.store.upsertPostMetrics(tx, workspaceId, rows, syncedAt, dayOf(syncedAt));
      await this.states.recordSynced(tx, workspaceId, platform, now, nextDueAfterClaim(now, this.config.analytics.syncIntervalMs));
    });
    this.logger.log({ msg: 'analytics synced', workspace_id: workspaceId, platform, posts: rows.length, simulated: read.simulated });
    return { status: 'synced', posts: rows.length, followers: read.followers };
  }

  private async recordFailure(workspaceId: string, platform: Platform, err: unknown, now: Date): Promise<Outcome> {
    const code = err instanceof AppError ? err.code : 'upstream_failed';
    const failure = { code, message: err instanceof Error ? err.message : String(err) };
    const interval = this.config.analytics.syncIntervalMs;
    if (code === 'rate_limited') {
      const retryAfterMs = err instanceof AppError ? retryAfterOf(err) : undefined;
      await this.states.recordBlocked(this.ds.manager, workspaceId, platform, blockedAfterRateLimit(now, retryAfterMs, interval), failure);
    } else {
      await this.states.recordFailed(this.ds.manager, workspaceId, platform, failure, nextDueAfterClaim(now, interval));
    }
    this.logger.warn({ msg: 'analytics sync skipped', workspace_id: workspaceId, platform, code, err: failure.message });
    return { status: 'skipped', code };
  }

  /** Follower counts from the latest follower days, then the retention sweep. */
  private async afterSync(workspaceId: string): Promise<void> {
    await inTransaction(this.ds, async (tx) => {
      await this.characters.setFollowerCounts(workspaceId, await this.store.followerCounts(tx, workspaceId), tx);
      const swept = await this.store.compact(tx, workspaceId, retentionCutoffs(new Date()));
      if (swept.snapshots + swept.followerDays > 0) this.logger.log({ msg: 'analytics compacted', workspace_id: workspaceId, ...swept });
    });
  }
}

/** The wait the platform asked for, as publishing reports it (`retryAfterMs`, or `retry_after` in seconds). */
function retryAfterOf(err: AppError): number | undefined {
  const d = err.details;
  if (!d || Array.isArray(d)) return undefined;
  if (typeof d.retryAfterMs === 'number') return d.retryAfterMs;
  if (typeof d.retry_after_ms === 'number') return d.retry_after_ms;
  return typeof d.retry_after === 'number' ? d.retry_after * 1000 : undefined;
}
