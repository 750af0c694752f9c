import { Injectable } from '@nestjs/common';
import type { Platform } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { PostMetrics } from '../../publishing/index.js';

/** What a read filters on: the workspace, optionally a character and a platform, and a published range [start, end). */
export interface MetricsFilter {
  workspaceId: string;
  characterId?: string;
  platform?: Platform;
  start: Date;
  end: Date;
}

export const POST_SORTS = ['published_at', 'engagement_rate', 'views', 'likes'] as const;
export type PostSortKey = (typeof POST_SORTS)[number];

export interface PostMetricsView {
  scheduledPostId: string;
  contentId: string;
  characterId: string;
  platform: Platform;
  remoteUrl: string | null;
  publishedAt: Date;
  metrics: PostMetrics;
  engagementRate: number | null;
  syncedAt: Date;
  simulated: boolean;
}

export interface PlatformTotals {
  platform: Platform;
  posts: number;
  metrics: PostMetrics;
  syncedAt: Date | null;
  simulated: boolean;
}

export interface FollowerPoint {
  date: string;
  platform: Platform;
  count: number;
  simulated: boolean;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function metricsOf(r: Record<string, unknown>): PostMetrics {
  return { impressions: num(r.impressions), views: num(r.views), likes: num(r.likes), comments: num(r.comments), shares: num(r.shares), saves: num(r.saves) };
}

function viewOf(r: Record<string, unknown>): PostMetricsView {
  return {
    scheduledPostId: r.scheduled_post_id as string, contentId: r.content_id as string, characterId: r.character_id as string,
    platform: r.platform as Platform, remoteUrl: (r.remote_url as string | null) ?? null, publishedAt: new Date(r.published_at as string),
    metrics: metricsOf(r), engagementRate: num(r.engagement_rate), syncedAt: new Date(r.synced_at as string), simulated: r.simulated as boolean,
  };
}

/** $1 workspace, $2 character or null, $3 platform or null, $4 start, $5 end. */
const WHERE = `workspace_id = $1 AND ($2::text IS NULL OR character_id = $2) AND ($3::text IS NULL OR platform = $3)
  AND published_at >= $4 AND published_at < $5`;
const paramsOf = (f: MetricsFilter) => [f.workspaceId, f.characterId ?? null, f.platform ?? null, f.start, f.end];

/** The routes' reads of the latest metrics and the follower days. */
@Injectable()
export class AnalyticsReadsRepository {
  async page(m: Tx, f: MetricsFilter, sort: { key: PostSortKey; desc: boolean }, limit: number, offset: number): Promise<{ items: PostMetricsView[]; total: number }> {
    const [items, [count]]: [PostMetricsView[], Array<{ n: string }>] = await Promise.all([
      this.sorted(m, f, sort, limit, offset),
      m.query(`SELECT count(*) AS n FROM post_metrics_latest WHERE ${WHERE}`, paramsOf(f)),
    ]);
    return { items, total: Number(count?.n ?? 0) };
  }

  /** The best posts by engagement, without the page's count (a year of a workspace's posts costs more to count than to rank). */
  top(m: Tx, f: MetricsFilter, limit: number): Promise<PostMetricsView[]> {
    return this.sorted(m, f, { key: 'engagement_rate', desc: true }, limit, 0);
  }

  private async sorted(m: Tx, f: MetricsFilter, sort: { key: PostSortKey; desc: boolean }, limit: number, offset: number): Promise<PostMetricsView[]> {
    const dir = sort.desc ? 'DESC' : 'ASC';
    // The key is one of POST_SORTS (the DTO admits nothing else); the id breaks ties so pages never overlap.
    const rows: Array<Record<string, unknown>> = await m.query(
      `SELECT * FROM post_metrics_latest WHERE ${WHERE}
        ORDER BY ${sort.key} ${dir} NULLS LAST, scheduled_post_id ${dir} LIMIT $6 OFFSET $7`,
      [...paramsOf(f), limit, offset],
    );
    return rows.map(viewOf);
  }

  async byPlatform(m: Tx, f: MetricsFilter): Promise<PlatformTotals[]> {
    const rows: Array<Record<string, unknown>> = await m.query(
      `SELECT platform, count(*) AS posts, sum(impressions) AS impressions, sum(views) AS views, sum(likes) AS likes,
              sum(comments) AS comments, sum(shares) AS shares, sum(saves) AS saves, max(synced_at) AS synced_at, bool_or(simulated) AS simulated
         FROM post_metrics_latest WHERE ${WHERE} GROUP BY platform ORDER BY platform`,
      paramsOf(f),
    );
    return rows.map((r) => ({
      platform: r.platform as Platform, posts: Number(r.posts), metrics: metricsOf(r),
      syncedAt: r.synced_at ? new Date(r.synced_at as string) : null, simulated: r.simulated === true,
    }));
  }

  /**
   * Followers per day and platform over [from, to]: summed over the workspace's accounts, or over
   * the accounts the character's posts went to.
   */
  async followers(m: Tx, workspaceId: string, characterId: string | undefined, from: string, to: string): Promise<FollowerPoint[]> {
    const rows: Array<{ day: string; platform: Platform; n: string; simulated: boolean }> = await m.query(
      `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, d.platform, sum(d.followers) AS n, bool_or(d.simulated) AS simulated
         FROM account_follower_days d
        WHERE d.workspace_id = $1 AND d.day BETWEEN $3::date AND $4::date
          AND ($2::text IS NULL OR (d.platform, d.account_id) IN (
                SELECT platform, account_id FROM post_metrics_latest WHERE workspace_id = $1 AND character_id = $2))
        GROUP BY d.day, d.platform ORDER BY d.day, d.platform`,
      [workspaceId, characterId ?? null, from, to],
    );
    return rows.map((r) => ({ date: r.day, platform: r.platform, count: Number(r.n), simulated: r.simulated }));
  }

  /** The measured posts (an engagement rate known) of a character, the last 1000 on each platform asked for: what best hours rank. */
  async measured(m: Tx, workspaceId: string, characterId: string, platforms: readonly Platform[]): Promise<Map<Platform, Array<{ publishedAt: Date; engagementRate: number }>>> {
    // Per platform, the newest 1000 along the (workspace, character, published_at) index, stopping there.
    const rows: Array<{ platform: Platform; published_at: string; engagement_rate: string }> = await m.query(
      `SELECT p.platform, latest.published_at, latest.engagement_rate
         FROM unnest($3::text[]) AS p(platform)
        CROSS JOIN LATERAL (
              SELECT published_at, engagement_rate FROM post_metrics_latest
               WHERE workspace_id = $1 AND character_id = $2 AND platform = p.platform AND engagement_rate IS NOT NULL
               ORDER BY published_at DESC LIMIT 1000) latest
        ORDER BY p.platform, latest.published_at DESC`,
      [workspaceId, characterId, [...platforms]],
    );
    const byPlatform = new Map<Platform, Array<{ publishedAt: Date; engagementRate: number }>>();
    for (const r of rows) {
      const posts = byPlatform.get(r.platform) ?? [];
      posts.push({ publishedAt: new Date(r.published_at), engagementRate: Number(r.engagement_rate) });
      byPlatform.set(r.platform, posts);
    }
    return byPlatform;
  }
}
