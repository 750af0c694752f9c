import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { changedRows, PreparedReads, type Tx } from '../../../platform/database/index.js';
import type { WorkspaceRole } from '../../../core/index.js';
import type { RefreshTokenState } from '../domain/refresh-token.js';
import type { Account } from '../domain/accounts.js';
import { ACCOUNT_COLUMNS, toAccount, type AccountRow } from './account-rows.js';

export interface StoredRefreshToken extends RefreshTokenState {
  id: string;
  sessionId: string;
  userId: string;
  workspaceId: string;
}

/** A live session's account (its workspace is the session's), the member's role there, and when the session ends unless refreshed. */
export interface LiveSession {
  account: Account;
  memberRole: WorkspaceRole;
  expiresAt: Date;
  /** The workspace requires two-factor sign-in of its members. */
  workspaceRequiresMfa: boolean;
}

/** Sessions (one per sign-in) and their refresh-token family. */
@Injectable()
export class SessionsRepository {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly hot: PreparedReads,
  ) {}

  async createSession(tx: Tx, s: { id: string; userId: string; workspaceId: string; expiresAt: Date; userAgent?: string; ip?: string }): Promise<void> {
    await tx.query('INSERT INTO sessions (id, user_id, workspace_id, expires_at, user_agent, ip) VALUES ($1, $2, $3, $4, $5, $6)', [
      s.id,
      s.userId,
      s.workspaceId,
      s.expiresAt,
      s.userAgent ?? null,
      s.ip ?? null,
    ]);
  }

  async insertRefreshToken(tx: Tx, t: { id: string; sessionId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
    await tx.query('INSERT INTO refresh_tokens (id, session_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)', [
      t.id,
      t.sessionId,
      t.tokenHash,
      t.expiresAt,
    ]);
  }

  /**
   * The session check (a request whose workspace's access stamp moved, or whose session this process
   * has not read yet) and GET /auth/me: one indexed query answers whether the session is still live
   * (not revoked, not expired, user active) and reads the user and workspace it belongs to.
   */
  async findLive(sessionId: string, userId: string): Promise<LiveSession | null> {
    // The membership is joined, not looked up: a member removed from the workspace has no live session there.
    const rows = await this.hot.rows<AccountRow & { session_expires_at: Date; member_role: WorkspaceRole; ws_require_mfa: boolean }>(
      'auth_live_session_member',
      `SELECT ${ACCOUNT_COLUMNS}, s.expires_at AS session_expires_at, m.role AS member_role, w.require_mfa AS ws_require_mfa
       FROM sessions s
       JOIN users u ON u.id = s.user_id
       JOIN memberships m ON m.workspace_id = s.workspace_id AND m.user_id = s.user_id
       JOIN workspaces w ON w.id = s.workspace_id
       WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now() AND u.status = 'active'`,
      [sessionId, userId],
    );
    const r = rows[0];
    return r ? { account: toAccount(r), memberRole: r.member_role, expiresAt: r.session_expires_at, workspaceRequiresMfa: r.ws_require_mfa } : null;
  }

  async findRefreshToken(tokenHash: string): Promise<StoredRefreshToken | null> {
    const rows: Array<{
      id: string;
      session_id: string;
      user_id: string;
      workspace_id: string;
      expires_at: Date;
      rotated_at: Date | null;
      session_revoked_at: Date | null;
      session_expires_at: Date;
      user_active: boolean;
    }> = await this.ds.query(
      `SELECT t.id, t.session_id, s.user_id, s.workspace_id, t.expires_at, t.rotated_at,
              s.revoked_at AS session_revoked_at, s.expires_at AS session_expires_at,
              u.status = 'active' AND EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = s.workspace_id AND m.user_id = s.user_id) AS user_active
       FROM refresh_tokens t
       JOIN sessions s ON s.id = t.session_id
       JOIN users u ON u.id = s.user_id
       WHERE t.token_hash = $1`,
      [tokenHash],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      id: r.id,
      sessionId: r.session_id,
      userId: r.user_id,
      workspaceId: r.workspace_id,
      tokenExpiresAt: r.expires_at,
      rotatedAt: r.rotated_at,
      sessionRevokedAt: r.session_revoked_at,
      sessionExpiresAt: r.session_expires_at,
      userActive: r.user_active,
    };
  }

  /**
   * Marks a token rotated only if nobody did so first and its session is still live; false means
   * a concurrent refresh (or a revocation) won, so the caller is presenting a spent token.
   */
  async markRotated(tx: Tx, tokenId: string): Promise<boolean> {
    // The postgres driver answers an UPDATE with [rows, rowCount].
    const [, count]: [unknown[], number] = await tx.query(
      `UPDATE refresh_tokens t SET rotated_at = now()
       FROM sessions s
       WHERE t.id = $1 AND t.rotated_at IS NULL AND s.id = t.session_id AND s.revoked_at IS NULL`,
      [tokenId],
    );
    return count === 1;
  }

  async extendSession(tx: Tx, sessionId: string, expiresAt: Date): Promise<void> {
    await tx.query('UPDATE sessions SET expires_at = $2 WHERE id = $1', [sessionId, expiresAt]);
  }

  /** Ends a session: its access tokens and its whole refresh-token family stop working at once. */
  /** True when this call ended it, false when it had already ended. */
  async revokeSession(tx: Tx, sessionId: string, reason: string): Promise<boolean> {
    const [, count]: [unknown[], number] = await tx.query(
      'UPDATE sessions SET revoked_at = now(), revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL',
      [sessionId, reason],
    );
    return count === 1;
  }

  /**
   * Ends every live session of the user but `keepSessionId` (none when absent): their access tokens
   * and refresh-token families stop working at once. Answers the workspaces of the sessions it
   * ended, whose access stamps the caller moves after commit.
   */
  async revokeUserSessions(tx: Tx, userId: string, reason: string, keepSessionId?: string): Promise<string[]> {
    const rows: Array<{ workspace_id: string }> = await changedRows(
      tx,
      `UPDATE sessions SET revoked_at = now(), revoked_reason = $2
       WHERE user_id = $1 AND revoked_at IS NULL AND id <> $3
       RETURNING workspace_id`,
      [userId, reason, keepSessionId ?? ''],
    );
    return [...new Set(rows.map((r) => r.workspace_id))];
  }
}
