import { Injectable } from '@nestjs/common';
import type { Platform } from '../../../core/index.js';
import { changedRows, type Tx } from '../../../platform/database/index.js';
import type { PostMetrics } from '../../publishing/index.js';
import type { RetentionCutoffs } from '../domain/retention.js';

/** One post's metrics as a sync files them. */
export interface PostMetricsRow {
  id: string;
  scheduledPostId: string;
  contentId: string;
  characterId: string;
  platform: Platform;
  accountId: string;
  remoteUrl: string | null;
  publishedAt: Date;
  metrics: PostMetrics;
  engagementRate: number | null;
  simulated: boolean;
}

export interface FollowerDay {
  platform: Platform;
  accountId: string;
  day: string;
  followers: number;
  simulated: boolean;
}

const COMMON_COLUMNS = `scheduled_post_id, content_id, character_id, platform, account_id, published_at,
  impressions, views, likes, comments, shares, saves, engagement_rate, simulated`;
const SNAPSHOT_COLUMNS = `id, ${COMMON_COLUMNS}`;
const LATEST_COLUMNS = `remote_url, ${COMMON_COLUMNS}`;
const RECORD = `r(id text, scheduled_post_id text, content_id text, character_id text, platform text, account_id text, remote_url text,
  published_at timestamptz, impressions int, views int, likes int, comments int, shares int, saves int, engagement_rate numeric, simulated boolean)`;
const METRIC_UPDATE = `impressions = EXCLUDED.impressions, views = EXCLUDED.views, likes = EXCLUDED.likes, comments = EXCLUDED.comments,
  shares = EXCLUDED.shares, saves = EXCLUDED.saves, engagement_rate = EXCLUDED.engagement_rate, simulated = EXCLUDED.simulated, synced_at = EXCLUDED.synced_at`;

function recordOf(r: PostMetricsRow): Record<string, unknown> {
  return {
    id: r.id, scheduled_post_id: r.scheduledPostId, content_id: r.contentId, character_id: r.characterId, platform: r.platform,
    account_id: r.accountId, remote_url: r.remoteUrl, published_at: r.publishedAt.toISOString(), ...r.metrics,
    engagement_rate: r.engagementRate, simulated: r.simulated,
  };
}

/** What a sync writes: follower days, post snapshots and latest metrics, and the retention sweep. Every method takes the workspace. */
@Injectable()
export class AnalyticsRepository {
  async upsertFollowerDay(m: Tx, workspaceId: string, f: FollowerDay, syncedAt: Date): Promise<void> {
    await m.query(
      `INSERT INTO account_follower_days (workspace_id, platform, account_id, day, followers, simulated, synced_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (workspace_id, platform, account_id, day)
       DO UPDATE SET followers = EXCLUDED.followers, simulated = EXCLUDED.simulated, synced_at = EXCLUDED.synced_at
       WHERE account_follower_days.synced_at <= EXCLUDED.synced_at`,
      [workspaceId, f.platform, f.accountId, f.day, f.followers, f.simulated, syncedAt],
    );
  }

  /**
   * Files one sync's post metrics: the day's snapshot (a later sync the same day replaces it) and
   * the latest row (never replaced by an older read: two syncs may finish out of order).
   */
  async upsertPostMetrics(m: Tx, workspaceId: string, rows: readonly PostMetricsRow[], syncedAt: Date, day: string): Promise<void> {
    if (rows.length === 0) return;
    const records = JSON.stringify(rows.map(recordOf));
    await m.query(
      `INSERT INTO post_metric_snapshots (${SNAPSHOT_COLUMNS}, workspace_id, synced_day, synced_at)
       SELECT ${SNAPSHOT_COLUMNS}, $2, $3::date, $4 FROM jsonb_to_recordset($1::jsonb) AS ${RECORD}
       ON CONFLICT (scheduled_post_id, synced_day) DO UPDATE SET ${METRIC_UPDATE}
       WHERE post_metric_snapshots.synced_at <= EXCLUDED.synced_at`,
      [records, workspaceId, day, syncedAt],
    );
    await m.query(
      `INSERT INTO post_metrics_latest (${LATEST_COLUMNS}, workspace_id, synced_at)
       SELECT ${LATEST_COLUMNS}, $2, $3 FROM jsonb_to_recordset($1::jsonb) AS ${RECORD}
       ON CONFLICT (scheduled_post_id) DO UPDATE SET ${METRIC_UPDATE}, remote_url = EXCLUDED.remote_url, account_id = EXCLUDED.account_id
       WHERE post_metrics_latest.synced_at <= EXCLUDED.synced_at`,
      [records, workspaceId, syncedAt],
    );
  }

  /**
   * Each character's follower count: over the accounts its posts went to, the sum of each account's
   * latest follower day.
   */
  async followerCounts(m: Tx, workspaceId: string): Promise<Map<string, number>> {
    const rows: Array<{ character_id: string; n: number }> = await m.query(
      `WITH accounts AS (
         SELECT DISTINCT character_id, platform, account_id FROM post_metrics_latest WHERE workspace_id = $1
       ), latest AS (
         SELECT DISTINCT ON (platform, account_id) platform, account_id, followers
           FROM account_follower_days WHERE workspace_id = $1 ORDER BY platform, account_id, day DESC
       )
       SELECT a.character_id, sum(l.followers)::int AS n FROM accounts a JOIN latest l USING (platform, account_id) GROUP BY a.character_id`,
      [workspaceId],
    );
    return new Map(rows.map((r) => [r.character_id, Number(r.n)]));
  }

  /** The retention sweep (domain/retention.ts): older snapshots compacted to the latest of each ISO week; old follower days dropped. */
  async compact(m: Tx, workspaceId: string, cutoffs: RetentionCutoffs): Promise<{ snapshots: number; followerDays: number }> {
    const snapshots = await changedRows<{ id: string }>(
      m,
      `DELETE FROM post_metric_snapshots s
        WHERE s.workspace_id = $1 AND s.synced_day < $2::date
          AND EXISTS (SELECT 1 FROM post_metric_snapshots t
                       WHERE t.scheduled_post_id = s.scheduled_post_id AND t.synced_day > s.synced_day AND t.synced_day < $2::date
                         AND date_trunc('week', t.synced_day) = date_trunc('week', s.synced_day))
        RETURNING s.id`,
      [workspaceId, cutoffs.weeklyBefore],
    );
    const days = await changedRows<{ day: string }>(
      m,
      `DELETE FROM account_follower_days WHERE workspace_id = $1 AND day < $2::date RETURNING day`,
      [workspaceId, cutoffs.followersFrom],
    );
    return { snapshots: snapshots.length, followerDays: days.length };
  }
}
