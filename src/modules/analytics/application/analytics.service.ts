import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, offsetOf, type Page, type PageRequest, type Platform } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { Jobs, type JobRecord } from '../../../platform/queue/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { MonetizationFacade, type EarningsOverview } from '../../monetization/index.js';
import type { PostMetrics } from '../../publishing/index.js';
import { rangeInstants, resolveRange, type DayRange } from '../domain/date-range.js';
import { engagementRate } from '../domain/engagement.js';
import { onDemandRetryAfterSeconds } from '../domain/sync-schedule.js';
import { AnalyticsReadsRepository, type FollowerPoint, type MetricsFilter, type PlatformTotals, type PostMetricsView, type PostSortKey } from '../infrastructure/analytics-reads.repository.js';
import { SyncStateRepository } from '../infrastructure/sync-state.repository.js';
import { SYNC_ANALYTICS_JOB } from './job-types.js';

const TOP_POSTS = 5;
const METRIC_KEYS = ['impressions', 'views', 'likes', 'comments', 'shares', 'saves'] as const;

export interface Totals {
  posts: number;
  metrics: PostMetrics;
  engagementRate: number | null;
}

export interface Overview {
  range: DayRange;
  totals: Totals;
  followers: FollowerPoint[];
  topPosts: PostMetricsView[];
  byPlatform: Array<PlatformTotals & { engagementRate: number | null; followers: number | null }>;
  syncedAt: Date | null;
  simulated: boolean;
  /** Revenue and counted link clicks per character over the same days (the monetization context's). */
  earnings: EarningsOverview;
}

/** Sums metrics; a metric no row reports stays null. */
function sumMetrics(all: readonly PostMetrics[]): PostMetrics {
  const out = { impressions: null, views: null, likes: null, comments: null, shares: null, saves: null } as Record<keyof PostMetrics, number | null>;
  for (const m of all) for (const k of METRIC_KEYS) if (m[k] !== null) out[k] = (out[k] ?? 0) + m[k];
  return out;
}

/** The analytics routes' use cases (contract §15). */
@Injectable()
export class AnalyticsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly reads: AnalyticsReadsRepository,
    private readonly states: SyncStateRepository,
    private readonly characters: CharactersFacade,
    private readonly jobs: Jobs,
    private readonly monetization: MonetizationFacade,
  ) {}

  /** The filter of a request: a foreign or missing character is 404, a bad range 400. */
  private async filterOf(workspaceId: string, q: { characterId?: string; platform?: Platform; from?: string; to?: string }): Promise<{ filter: MetricsFilter; range: DayRange }> {
    const range = resolveRange({ from: q.from, to: q.to }, new Date());
    if (q.characterId !== undefined) await this.characters.get(workspaceId, q.characterId);
    return { range, filter: { workspaceId, characterId: q.characterId, platform: q.platform, ...rangeInstants(range) } };
  }

  async overview(workspaceId: string, q: { characterId?: string; from?: string; to?: string }): Promise<Overview> {
    const { filter, range } = await this.filterOf(workspaceId, q);
    const m = this.ds.manager;
    // Five independent reads on pooled connections: the answer waits for the slowest, not their sum.
    const [platforms, followers, top, syncedAt, earnings] = await Promise.all([
      this.reads.byPlatform(m, filter),
      this.reads.followers(m, workspaceId, q.characterId, range.from, range.to),
      this.reads.top(m, filter, TOP_POSTS),
      this.states.lastSyncedAt(m, workspaceId),
      this.monetization.earnings(workspaceId, { fromDay: range.from, toDay: range.to, characterId: q.characterId }),
    ]);
    const lastFollowers = new Map<Platform, number>();
    for (const point of followers) lastFollowers.set(point.platform, point.count);
    const metrics = sumMetrics(platforms.map((p) => p.metrics));
    return {
      range,
      totals: { posts: platforms.reduce((n, p) => n + p.posts, 0), metrics, engagementRate: engagementRate(metrics) },
      followers,
      topPosts: top,
      byPlatform: platforms.map((p) => ({ ...p, engagementRate: engagementRate(p.metrics), followers: lastFollowers.get(p.platform) ?? null })),
      syncedAt,
      simulated: platforms.some((p) => p.simulated) || followers.some((f) => f.simulated),
      earnings,
    };
  }

  async posts(
    workspaceId: string,
    q: { characterId?: string; platform?: Platform; from?: string; to?: string; sort: { key: PostSortKey; desc: boolean } },
    page: PageRequest,
  ): Promise<Page<PostMetricsView>> {
    const { filter } = await this.filterOf(workspaceId, q);
    const found = await this.reads.page(this.ds.manager, filter, q.sort, page.pageSize, offsetOf(page));
    return { items: found.items, total: found.total, page: page.page, pageSize: page.pageSize };
  }

  /**
   * An on-demand sync of every connection of the workspace: one job, at most once per 10 minutes
   * (429 `rate_limited`, `retry_after` seconds in details). The throttle and the job commit together.
   */
  async requestSync(workspaceId: string): Promise<JobRecord<'sync_analytics'>> {
    const now = new Date();
    const job = await inTransaction(this.ds, async (tx) => {
      const last = await this.states.takeOnDemand(tx, workspaceId, now);
      if (last) {
        const retryAfter = Math.max(1, onDemandRetryAfterSeconds(last, now));
        throw new AppError('rate_limited', 'Analytics were synced on demand less than 10 minutes ago.', { retry_after: retryAfter });
      }
      return this.jobs.create(tx, { workspaceId, jobType: SYNC_ANALYTICS_JOB, payload: { trigger: 'on_demand' } });
    });
    await this.jobs.enqueue(job);
    return job;
  }
}
