import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { offsetOf, type Page, type PageRequest, type Plan, type Role, type WorkspaceRole } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { Account, Membership, User, Workspace, WorkspaceWithOwner } from '../domain/accounts.js';
import {
  ACCOUNT_COLUMNS,
  toAccount,
  toUser,
  toWorkspace,
  USER_COLUMNS,
  WORKSPACE_COLUMNS,
  type AccountRow,
  type UserRow,
  type WorkspaceRow,
} from './account-rows.js';

export interface NewUser {
  id: string;
  workspaceId: string;
  email: string;
  passwordHash: string;
  displayName: string;
  role: Role;
  locale?: string;
  /** Made with its address already proven (the operator's admin account); otherwise unverified. */
  emailVerified?: boolean;
}

/** Users and workspaces: the accounts side of the auth context. */
@Injectable()
export class AccountsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insertWorkspace(tx: Tx, ws: { id: string; name: string; plan: Plan }): Promise<void> {
    await tx.query('INSERT INTO workspaces (id, name, plan) VALUES ($1, $2, $3)', [ws.id, ws.name, ws.plan]);
  }

  /**
   * A user, owner of its home workspace (its membership made in the same statement). Throws the
   * unique violation of users_email_lower_uq for an email already in use, in any case.
   */
  async insertUser(tx: Tx, u: NewUser): Promise<User> {
    const rows: UserRow[] = await tx.query(
      `WITH created AS (
         INSERT INTO users AS u (id, workspace_id, email, password_hash, display_name, role, locale, email_verified_at)
         VALUES ($1, $2, $3, $4, $5, $6, COALESCE($7, 'en'), CASE WHEN $8::boolean THEN now() END)
         RETURNING ${USER_COLUMNS}),
       owner AS (INSERT INTO memberships (workspace_id, user_id, role) SELECT workspace_id, id, 'owner' FROM created)
       SELECT * FROM created`,
      [u.id, u.workspaceId, u.email, u.passwordHash, u.displayName, u.role, u.locale ?? null, u.emailVerified === true],
    );
    return toUser(rows[0]);
  }

  async findCredentialsByEmail(email: string, tx?: Tx): Promise<(User & { passwordHash: string }) | null> {
    const rows: Array<UserRow & { password_hash: string }> = await (tx ?? this.ds.manager).query(
      `SELECT ${USER_COLUMNS}, u.password_hash FROM users u WHERE lower(u.email) = lower($1)`,
      [email],
    );
    return rows[0] ? { ...toUser(rows[0]), passwordHash: rows[0].password_hash } : null;
  }

  async findCredentialsById(userId: string): Promise<(User & { passwordHash: string }) | null> {
    const rows: Array<UserRow & { password_hash: string }> = await this.ds.query(`SELECT ${USER_COLUMNS}, u.password_hash FROM users u WHERE u.id = $1`, [userId]);
    return rows[0] ? { ...toUser(rows[0]), passwordHash: rows[0].password_hash } : null;
  }

  async findUserWithWorkspace(userId: string): Promise<Account | null> {
    const rows = await this.ds.query<AccountRow[]>(
      `SELECT ${ACCOUNT_COLUMNS} FROM users u JOIN workspaces w ON w.id = u.workspace_id WHERE u.id = $1`,
      [userId],
    );
    return rows[0] ? toAccount(rows[0]) : null;
  }

  /** Every workspace the user belongs to, the oldest membership (its own workspace) first. */
  async listMemberships(userId: string): Promise<Membership[]> {
    const rows: Array<WorkspaceRow & { member_role: WorkspaceRole; joined_at: Date }> = await this.ds.query(
      `SELECT ${WORKSPACE_COLUMNS}, m.role AS member_role, m.created_at AS joined_at
       FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
       WHERE m.user_id = $1 ORDER BY m.created_at, w.id`,
      [userId],
    );
    return rows.map((r) => ({ workspace: toWorkspace(r), role: r.member_role, joinedAt: r.joined_at }));
  }

  /** Where a sign-in lands: the user's own workspace while a member of it, else its oldest membership; null for none. */
  async signInWorkspace(userId: string, homeWorkspaceId: string): Promise<string | null> {
    const rows: Array<{ workspace_id: string }> = await this.ds.query(
      'SELECT workspace_id FROM memberships WHERE user_id = $1 ORDER BY (workspace_id = $2) DESC, created_at, workspace_id LIMIT 1',
      [userId, homeWorkspaceId],
    );
    return rows[0]?.workspace_id ?? null;
  }

  async findMemberRole(tx: Tx, userId: string, workspaceId: string): Promise<WorkspaceRole | null> {
    const rows: Array<{ role: WorkspaceRole }> = await tx.query('SELECT role FROM memberships WHERE user_id = $1 AND workspace_id = $2', [userId, workspaceId]);
    return rows[0]?.role ?? null;
  }

  async setRole(tx: Tx, userId: string, role: Role): Promise<void> {
    await tx.query('UPDATE users SET role = $2, updated_at = now() WHERE id = $1', [userId, role]);
  }

  /** The user's address, its proof and password hash, the row locked until the transaction ends; null for an unknown or disabled user. */
  async lockUser(tx: Tx, userId: string): Promise<{ id: string; email: string; emailVerifiedAt: Date | null; passwordHash: string } | null> {
    const rows: Array<{ id: string; email: string; email_verified_at: Date | null; password_hash: string }> = await tx.query(
      "SELECT id, email, email_verified_at, password_hash FROM users WHERE id = $1 AND status = 'active' FOR UPDATE",
      [userId],
    );
    const r = rows[0];
    return r ? { id: r.id, email: r.email, emailVerifiedAt: r.email_verified_at, passwordHash: r.password_hash } : null;
  }

  /** Moves the user to a new, proven address. Throws the unique violation of users_email_lower_uq when it is taken. */
  async changeEmail(tx: Tx, userId: string, email: string): Promise<void> {
    await tx.query('UPDATE users SET email = $2, email_verified_at = now(), updated_at = now() WHERE id = $1', [userId, email]);
  }

  /** Marks the user's current address proven, if it was not already. */
  async markEmailVerified(tx: Tx, userId: string): Promise<void> {
    await tx.query('UPDATE users SET email_verified_at = now(), updated_at = now() WHERE id = $1 AND email_verified_at IS NULL', [userId]);
  }

  async getWorkspace(id: string, tx?: Tx): Promise<Workspace | null> {
    const rows: WorkspaceRow[] = await (tx ?? this.ds.manager).query(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces w WHERE w.id = $1`, [id]);
    return rows[0] ? toWorkspace(rows[0]) : null;
  }

  /** The workspace on its new plan and the plan it left, read under the row lock so concurrent changes each see the one before. */
  async ownerEmails(workspaceId: string): Promise<string[]> {
    const rows: Array<{ email: string }> = await this.ds.query(
      `SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.workspace_id = $1 AND m.role = 'owner' ORDER BY m.created_at, m.user_id`,
      [workspaceId],
    );
    return rows.map((r) => r.email);
  }

  /**
   * Workspaces with an owner whose email contains `emailFragment`, case-insensitively; newest first.
   * Owners are read from the memberships, not from whose home workspace it is: one made with
   * `POST /organizations` is nobody's home. The answer names the longest-standing owner, or with a
   * fragment, the longest-standing owner it matches.
   */
  async findWorkspacesByOwnerEmail(emailFragment: string, req: PageRequest): Promise<Page<WorkspaceWithOwner>> {
    const pattern = `%${emailFragment.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const from = `FROM workspaces w
      LEFT JOIN LATERAL (
        SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.workspace_id = w.id AND m.role = 'owner' AND ($1 = '%%' OR lower(u.email) LIKE $1)
        ORDER BY m.created_at, m.user_id LIMIT 1
      ) owner ON true
      WHERE $1 = '%%' OR owner.email IS NOT NULL`;
    const rows = await this.ds.query<Array<WorkspaceRow & { owner_email: string | null }>>(
      `SELECT ${WORKSPACE_COLUMNS}, owner.email AS owner_email ${from}
       ORDER BY w.created_at DESC, w.id DESC LIMIT $2 OFFSET $3`,
      [pattern, req.pageSize, offsetOf(req)],
    );
    const counted = await this.ds.query<Array<{ total: number }>>(`SELECT count(*)::int AS total ${from}`, [pattern]);
    return {
      items: rows.map((r) => ({ ...toWorkspace(r), ownerEmail: r.owner_email })),
      page: req.page,
      pageSize: req.pageSize,
      total: counted[0].total,
    };
  }
}
