import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { changedRows, PreparedReads, type Tx } from '../../../platform/database/index.js';
import { offsetOf, type Page, type PageRequest, type Plan, type WorkspaceRole } from '../../../core/index.js';
import type { RefreshTokenState } from '../domain/refresh-token.js';
import type { Account, Membership, User } from '../domain/accounts.js';
import { ACCOUNT_COLUMNS, toAccount, toUser, toWorkspace, USER_COLUMNS, type AccountRow, type UserRow } from './account-rows.js';

export interface StoredRefreshToken extends RefreshTokenState {
  id: string;
  sessionId: string;
  userId: string;
  workspaceId: string;
}

/** A live session's account (its workspace is the session's), the member's role there, and when the session ends unless refreshed. */
/** A live session's account, the caller's role in its workspace and every workspace the user belongs to. */
export interface SessionAccount {
  account: Account;
  role: WorkspaceRole;
  memberships: Membership[];
}

interface MembershipRow {
  o_id: string;
  o_name: string;
  o_plan: Plan;
  o_credits_balance: number;
  o_created_at: Date;
  o_role: WorkspaceRole;
  o_joined_at: Date;
}

export interface LiveSession {
  account: Account;
  memberRole: WorkspaceRole;
  expiresAt: Date;
  /** The workspace requires two-factor sign-in of its members. */
  workspaceRequiresMfa: boolean;
}

/** A session as its user sees it in the list of their sessions. */
export interface UserSession {
  id: string;
  workspaceId: string;
  userAgent: string | null;
  ip: string | null;
  createdAt: Date;
  lastUsedAt: Date;
}

/** Where a session ended by its user belonged: what the audit entry and the access stamp need. */
export interface EndedSession {
  sessionId: string;
  workspaceId: string;
}

/** How many distinct (user agent, address) pairs the new-device check reads at most. */
const DEVICES_READ = 1000;

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

  /**
   * GET /auth/me in one statement: the user, every workspace they belong to (the oldest membership
   * first) with their role there, and among them the session's workspace. One row per membership;
   * null when the user is gone or no longer a member of the session's workspace. Whether the
   * session still stands is the session check's, made for this request as for every other.
   */
  async findMe(userId: string, workspaceId: string): Promise<SessionAccount | null> {
    const rows = await this.hot.rows<UserRow & MembershipRow>(
      'auth_me',
      `SELECT ${USER_COLUMNS},
              o.id AS o_id, o.name AS o_name, o.plan AS o_plan, o.credits_balance AS o_credits_balance, o.created_at AS o_created_at,
              om.role AS o_role, om.created_at AS o_joined_at
       FROM users u
       JOIN memberships om ON om.user_id = u.id
       JOIN workspaces o ON o.id = om.workspace_id
       WHERE u.id = $1 AND u.status = 'active'
       ORDER BY om.created_at, o.id`,
      [userId],
    );
    const memberships = rows.map((r) => ({
      workspace: toWorkspace({ id: r.o_id, name: r.o_name, plan: r.o_plan, credits_balance: r.o_credits_balance, created_at: r.o_created_at }),
      role: r.o_role,
      joinedAt: r.o_joined_at,
    }));
    const current = memberships.find((m) => m.workspace.id === workspaceId);
    if (!current) return null;
    return { account: { user: toUser(rows[0]), workspace: current.workspace }, role: current.role, memberships };
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

  /** A refresh: the session lives on and counts as used now (the only use recorded after sign-in). */
  async extendSession(tx: Tx, sessionId: string, expiresAt: Date): Promise<void> {
    await tx.query('UPDATE sessions SET expires_at = $2, last_used_at = now() WHERE id = $1', [sessionId, expiresAt]);
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

  /**
   * The user's sessions that still work, in every workspace: not revoked, not expired, and in a
   * workspace the user still belongs to (a session elsewhere cannot be used). Most recently used first.
   */
  async listLive(userId: string, page: PageRequest): Promise<Page<UserSession>> {
    const live = `FROM sessions s
       WHERE s.user_id = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
         AND EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = s.workspace_id AND m.user_id = s.user_id)`;
    const [rows, counted] = await Promise.all([
      this.ds.query<Array<{ id: string; workspace_id: string; user_agent: string | null; ip: string | null; created_at: Date; last_used_at: Date }>>(
        `SELECT s.id, s.workspace_id, s.user_agent, s.ip, s.created_at, s.last_used_at ${live}
         ORDER BY s.last_used_at DESC, s.id DESC LIMIT $2 OFFSET $3`,
        [userId, page.pageSize, offsetOf(page)],
      ),
      this.ds.query<Array<{ total: number }>>(`SELECT count(*)::int AS total ${live}`, [userId]),
    ]);
    return {
      items: rows.map((r) => ({ id: r.id, workspaceId: r.workspace_id, userAgent: r.user_agent, ip: r.ip, createdAt: r.created_at, lastUsedAt: r.last_used_at })),
      page: page.page,
      pageSize: page.pageSize,
      total: counted[0]?.total ?? 0,
    };
  }

  /** Ends one of the user's sessions that has not ended yet; null when there is none such (another user's, unknown, ended). */
  async revokeOwn(tx: Tx, userId: string, sessionId: string, reason: string): Promise<EndedSession | null> {
    const [rows]: [Array<{ id: string; workspace_id: string }>, number] = await tx.query(
      `UPDATE sessions SET revoked_at = now(), revoked_reason = $3
       WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL AND expires_at > now()
       RETURNING id, workspace_id`,
      [sessionId, userId, reason],
    );
    return rows[0] ? { sessionId: rows[0].id, workspaceId: rows[0].workspace_id } : null;
  }

  /** Ends every session of the user that has not ended yet, except `keptSessionId`. */
  async revokeAllBut(tx: Tx, userId: string, keptSessionId: string, reason: string): Promise<EndedSession[]> {
    const [rows]: [Array<{ id: string; workspace_id: string }>, number] = await tx.query(
      `UPDATE sessions SET revoked_at = now(), revoked_reason = $3
       WHERE user_id = $1 AND id <> $2 AND revoked_at IS NULL AND expires_at > now()
       RETURNING id, workspace_id`,
      [userId, keptSessionId, reason],
    );
    return rows.map((r) => ({ sessionId: r.id, workspaceId: r.workspace_id }));
  }

  /** The address and the choice of sign-in alerts of a user, read in the sign-in's transaction. */
  async alertSettings(tx: Tx, userId: string): Promise<{ email: string; signInAlerts: boolean } | null> {
    const rows: Array<{ email: string; sign_in_alerts: boolean }> = await tx.query('SELECT email, sign_in_alerts FROM users WHERE id = $1', [userId]);
    return rows[0] ? { email: rows[0].email, signInAlerts: rows[0].sign_in_alerts } : null;
  }

  /**
   * The clients the user's other sessions were started from, among sessions used since `since`,
   * ended ones included (a device the user signed out of is still theirs).
   */
  async clientsUsedSince(tx: Tx, userId: string, exceptSessionId: string, since: Date): Promise<Array<{ userAgent: string | null; ip: string | null }>> {
    const rows: Array<{ user_agent: string | null; ip: string | null }> = await tx.query(
      `SELECT DISTINCT user_agent, ip FROM sessions
       WHERE user_id = $1 AND id <> $2 AND last_used_at > $3
       LIMIT ${DEVICES_READ}`,
      [userId, exceptSessionId, since],
    );
    return rows.map((r) => ({ userAgent: r.user_agent, ip: r.ip }));
  }

  /** The user as it is once the choice is stored. */
  async setSignInAlerts(userId: string, on: boolean): Promise<User | null> {
    const [rows]: [UserRow[], number] = await this.ds.query(`UPDATE users u SET sign_in_alerts = $2 WHERE u.id = $1 RETURNING ${USER_COLUMNS}`, [userId, on]);
    return rows[0] ? toUser(rows[0]) : null;
  }
}
