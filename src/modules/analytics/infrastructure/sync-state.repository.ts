import { Injectable } from '@nestjs/common';
import type { Platform } from '../../../core/index.js';
import { changedRows, type Tx } from '../../../platform/database/index.js';
import type { ConnectionRef } from '../../publishing/index.js';
import { ON_DEMAND_SYNC_GAP_MS } from '../domain/sync-schedule.js';

export interface ClaimedSync {
  workspaceId: string;
  platform: Platform;
}

export interface SyncFailure {
  code: string;
  message: string;
}

/** `analytics_sync_state` (one row per connection) and `analytics_sync_requests` (the on-demand throttle). */
@Injectable()
export class SyncStateRepository {
  /** Adds a row, due now, for each live connection that has none: a new connection is synced at the next tick. */
  async ensure(m: Tx, connections: readonly ConnectionRef[], now: Date): Promise<void> {
    if (connections.length === 0) return;
    await m.query(
      `INSERT INTO analytics_sync_state (workspace_id, platform, next_due_at)
       SELECT DISTINCT w, p, $3::timestamptz FROM unnest($1::text[], $2::text[]) AS c(w, p)
       ON CONFLICT (workspace_id, platform) DO NOTHING`,
      [connections.map((c) => c.workspaceId), connections.map((c) => c.platform), now],
    );
  }

  /**
   * Claims up to `limit` due syncs among the live connections by moving their `next_due_at` to
   * `nextDueAt` (domain/sync-schedule.ts `isDue` is the WHERE). Row locks are skipped, and the outer
   * WHERE re-checks the rule, so of several processes claiming at once each due row goes to one.
   */
  async claimDue(m: Tx, live: readonly ConnectionRef[], now: Date, nextDueAt: Date, limit: number): Promise<ClaimedSync[]> {
    if (live.length === 0) return [];
    const rows = await changedRows<{ workspace_id: string; platform: Platform }>(
      m,
      `UPDATE analytics_sync_state s SET next_due_at = $2
        WHERE (s.workspace_id, s.platform) IN (
                SELECT d.workspace_id, d.platform FROM analytics_sync_state d
                 WHERE (d.workspace_id, d.platform) IN (SELECT w, p FROM unnest($4::text[], $5::text[]) AS c(w, p))
                   AND d.next_due_at <= $1 AND (d.blocked_until IS NULL OR d.blocked_until <= $1)
                 ORDER BY d.next_due_at LIMIT $3 FOR UPDATE SKIP LOCKED)
          AND s.next_due_at <= $1 AND (s.blocked_until IS NULL OR s.blocked_until <= $1)
        RETURNING s.workspace_id, s.platform`,
      [now, nextDueAt, limit, live.map((c) => c.workspaceId), live.map((c) => c.platform)],
    );
    return rows.map((r) => ({ workspaceId: r.workspace_id, platform: r.platform }));
  }

  async recordSynced(m: Tx, workspaceId: string, platform: Platform, now: Date, nextDueAt: Date): Promise<void> {
    await m.query(
      `INSERT INTO analytics_sync_state (workspace_id, platform, last_synced_at, next_due_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, platform)
       DO UPDATE SET last_synced_at = $3, blocked_until = NULL, last_error = NULL,
                     next_due_at = GREATEST(analytics_sync_state.next_due_at, $4)`,
      [workspaceId, platform, now, nextDueAt],
    );
  }

  /** A platform rate limit: nothing syncs before `blockedUntil`, and the sync is due again right then. */
  async recordBlocked(m: Tx, workspaceId: string, platform: Platform, blockedUntil: Date, failure: SyncFailure): Promise<void> {
    await m.query(
      `INSERT INTO analytics_sync_state (workspace_id, platform, next_due_at, blocked_until, last_error) VALUES ($1, $2, $3, $3, $4)
       ON CONFLICT (workspace_id, platform) DO UPDATE SET next_due_at = $3, blocked_until = $3, last_error = $4`,
      [workspaceId, platform, blockedUntil, JSON.stringify(failure)],
    );
  }

  /** Another failure: kept for operators; the next period tries again. */
  async recordFailed(m: Tx, workspaceId: string, platform: Platform, failure: SyncFailure, nextDueAt: Date): Promise<void> {
    await m.query(
      `INSERT INTO analytics_sync_state (workspace_id, platform, next_due_at, last_error) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, platform) DO UPDATE SET last_error = $4`,
      [workspaceId, platform, nextDueAt, JSON.stringify(failure)],
    );
  }

  /** The latest sync of the workspace (of any connection), or null before the first. */
  async lastSyncedAt(m: Tx, workspaceId: string): Promise<Date | null> {
    const [row]: Array<{ at: Date | null }> = await m.query(`SELECT max(last_synced_at) AS at FROM analytics_sync_state WHERE workspace_id = $1`, [workspaceId]);
    return row?.at ? new Date(row.at) : null;
  }

  /**
   * Takes the workspace's on-demand sync if the last one is 10 minutes old (one conditional upsert,
   * so two requests at once cannot both pass). Answers null when taken, else when the last one was made.
   */
  async takeOnDemand(m: Tx, workspaceId: string, now: Date): Promise<Date | null> {
    const taken: Array<{ workspace_id: string }> = await m.query(
      `INSERT INTO analytics_sync_requests (workspace_id, last_requested_at) VALUES ($1, $2)
       ON CONFLICT (workspace_id) DO UPDATE SET last_requested_at = $2
       WHERE analytics_sync_requests.last_requested_at <= $3
       RETURNING workspace_id`,
      [workspaceId, now, new Date(now.getTime() - ON_DEMAND_SYNC_GAP_MS)],
    );
    if (taken.length > 0) return null;
    const [row]: Array<{ last_requested_at: Date }> = await m.query(`SELECT last_requested_at FROM analytics_sync_requests WHERE workspace_id = $1`, [workspaceId]);
    return row ? new Date(row.last_requested_at) : now;
  }
}
