import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { changedRows, type Tx } from '../../../platform/database/index.js';
import type { ExportStatus, MembershipCount } from '../domain/data-rights.js';

export interface AccountExport {
  id: string;
  workspaceId: string;
  userId: string;
  status: ExportStatus;
  jobId: string | null;
  archiveKey: string | null;
  sizeBytes: number | null;
  createdAt: Date;
  readyAt: Date | null;
  expiresAt: Date | null;
}

interface ExportRow {
  id: string;
  workspace_id: string;
  user_id: string;
  status: ExportStatus;
  job_id: string | null;
  archive_key: string | null;
  size_bytes: string | number | null;
  created_at: Date;
  ready_at: Date | null;
  expires_at: Date | null;
}

const toExport = (r: ExportRow): AccountExport => ({
  id: r.id,
  workspaceId: r.workspace_id,
  userId: r.user_id,
  status: r.status,
  jobId: r.job_id,
  archiveKey: r.archive_key,
  sizeBytes: r.size_bytes === null ? null : Number(r.size_bytes),
  createdAt: r.created_at,
  readyAt: r.ready_at,
  expiresAt: r.expires_at,
});

/** Exports and scheduled deletions: the data-rights side of the auth context. */
@Injectable()
export class DataRightsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  // ---- exports

  async insertExport(tx: Tx, e: { id: string; workspaceId: string; userId: string; jobId: string }): Promise<AccountExport> {
    const rows: ExportRow[] = await tx.query(
      'INSERT INTO account_exports (id, workspace_id, user_id, job_id) VALUES ($1, $2, $3, $4) RETURNING *',
      [e.id, e.workspaceId, e.userId, e.jobId],
    );
    return toExport(rows[0]);
  }

  /** Start times of the workspace's exports in the last day, read under a lock on the workspace so concurrent requests count each other. */
  async recentExportStarts(tx: Tx, workspaceId: string, since: Date): Promise<Date[]> {
    await tx.query('SELECT id FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
    const rows: Array<{ created_at: Date }> = await tx.query('SELECT created_at FROM account_exports WHERE workspace_id = $1 AND created_at > $2', [workspaceId, since]);
    return rows.map((r) => r.created_at);
  }

  async findExport(workspaceId: string, id: string, tx: Tx = this.ds.manager): Promise<AccountExport | null> {
    const rows: ExportRow[] = await tx.query('SELECT * FROM account_exports WHERE id = $1 AND workspace_id = $2', [id, workspaceId]);
    return rows[0] ? toExport(rows[0]) : null;
  }

  /** Marks a pending export ready; false when it was not pending (a re-delivered job). */
  async markExportReady(tx: Tx, workspaceId: string, id: string, r: { archiveKey: string; sizeBytes: number; readyAt: Date; expiresAt: Date }): Promise<boolean> {
    const rows = await changedRows(
      tx,
      `UPDATE account_exports SET status = 'ready', archive_key = $3, size_bytes = $4, ready_at = $5, expires_at = $6
        WHERE id = $1 AND workspace_id = $2 AND status = 'pending' RETURNING id`,
      [id, workspaceId, r.archiveKey, r.sizeBytes, r.readyAt, r.expiresAt],
    );
    return rows.length > 0;
  }

  async markExportFailed(tx: Tx, workspaceId: string, id: string): Promise<void> {
    await tx.query(`UPDATE account_exports SET status = 'failed' WHERE id = $1 AND workspace_id = $2 AND status = 'pending'`, [id, workspaceId]);
  }

  /** Ready exports past their life, oldest first. */
  async expiredExports(now: Date, limit: number): Promise<AccountExport[]> {
    const rows: ExportRow[] = await this.ds.query(`SELECT * FROM account_exports WHERE status = 'ready' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`, [now, limit]);
    return rows.map(toExport);
  }

  async markExportExpired(id: string): Promise<void> {
    await this.ds.query(`UPDATE account_exports SET status = 'expired', archive_key = NULL WHERE id = $1 AND status = 'ready'`, [id]);
  }

  /** Archive keys of every export the user made or the workspaces hold. */
  async archiveKeys(userId: string, workspaceIds: readonly string[]): Promise<string[]> {
    const rows: Array<{ archive_key: string }> = await this.ds.query(
      'SELECT archive_key FROM account_exports WHERE archive_key IS NOT NULL AND (user_id = $1 OR workspace_id = ANY($2))',
      [userId, workspaceIds],
    );
    return rows.map((r) => r.archive_key);
  }

  // ---- deletions

  async findPasswordHash(userId: string): Promise<{ email: string; passwordHash: string } | null> {
    const rows: Array<{ email: string; password_hash: string }> = await this.ds.query(`SELECT email, password_hash FROM users WHERE id = $1 AND status = 'active'`, [userId]);
    return rows[0] ? { email: rows[0].email, passwordHash: rows[0].password_hash } : null;
  }

  async findEmail(userId: string, tx: Tx = this.ds.manager): Promise<string | null> {
    const rows: Array<{ email: string }> = await tx.query('SELECT email FROM users WHERE id = $1', [userId]);
    return rows[0]?.email ?? null;
  }

  /** Every workspace the user belongs to with its member and owner counts. */
  async membershipCounts(userId: string, tx: Tx = this.ds.manager): Promise<MembershipCount[]> {
    const rows: Array<{ workspace_id: string; role: string; members: string; owners: string }> = await tx.query(
      `SELECT m.workspace_id, m.role,
              (SELECT count(*) FROM memberships o WHERE o.workspace_id = m.workspace_id) AS members,
              (SELECT count(*) FROM memberships o WHERE o.workspace_id = m.workspace_id AND o.role = 'owner') AS owners
         FROM memberships m WHERE m.user_id = $1 ORDER BY m.created_at`,
      [userId],
    );
    return rows.map((r) => ({ workspaceId: r.workspace_id, role: r.role, members: Number(r.members), owners: Number(r.owners) }));
  }

  async scheduleDeletion(tx: Tx, userId: string, purgeAt: Date): Promise<void> {
    await tx.query(
      `INSERT INTO account_deletions (user_id, purge_at) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET state = 'scheduled', requested_at = now(), purge_at = EXCLUDED.purge_at, claimed_until = NULL`,
      [userId, purgeAt],
    );
  }

  /** Ends every live session of the user; answers the workspaces of those sessions. */
  async revokeAllSessions(tx: Tx, userId: string, reason: string): Promise<string[]> {
    const rows = await changedRows<{ workspace_id: string }>(
      tx,
      'UPDATE sessions SET revoked_at = now(), revoked_reason = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING workspace_id',
      [userId, reason],
    );
    return [...new Set(rows.map((r) => r.workspace_id))];
  }

  /** Cancels a scheduled (not yet claimed) deletion; true when there was one. */
  async cancelDeletion(userId: string): Promise<boolean> {
    const rows = await changedRows(this.ds.manager, `DELETE FROM account_deletions WHERE user_id = $1 AND state = 'scheduled' RETURNING user_id`, [userId]);
    return rows.length > 0;
  }

  /** Claims due deletions (scheduled, or claimed by a process whose lease ran out) until `leaseUntil`. */
  async claimDueDeletions(tx: Tx, now: Date, leaseUntil: Date, limit: number): Promise<string[]> {
    const rows = await changedRows<{ user_id: string }>(
      tx,
      `UPDATE account_deletions SET state = 'purging', claimed_until = $2
        WHERE user_id IN (SELECT user_id FROM account_deletions
                           WHERE purge_at <= $1 AND (state = 'scheduled' OR claimed_until < $1)
                           ORDER BY purge_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING user_id`,
      [now, leaseUntil, limit],
    );
    return rows.map((r) => r.user_id);
  }

  /** True while the user's deletion is still claimed (not cancelled, not already purged). */
  async isPurging(tx: Tx, userId: string): Promise<boolean> {
    const rows: unknown[] = await tx.query(`SELECT 1 FROM account_deletions WHERE user_id = $1 AND state = 'purging' FOR UPDATE`, [userId]);
    return rows.length > 0;
  }

  /**
   * Removes the workspaces and the user. Another user whose home workspace is one of them (it left
   * it) is moved to its oldest other membership first, so the workspace's cascade does not take it.
   */
  async deleteAccount(tx: Tx, userId: string, workspaceIds: readonly string[]): Promise<void> {
    await tx.query(
      `UPDATE users u SET workspace_id = m.workspace_id
         FROM (SELECT DISTINCT ON (user_id) user_id, workspace_id FROM memberships
                WHERE NOT (workspace_id = ANY($1)) ORDER BY user_id, created_at) m
        WHERE u.workspace_id = ANY($1) AND u.id <> $2 AND m.user_id = u.id`,
      [workspaceIds, userId],
    );
    await tx.query('DELETE FROM users WHERE id = $1', [userId]);
    await tx.query('DELETE FROM workspaces WHERE id = ANY($1)', [workspaceIds]);
  }
}
