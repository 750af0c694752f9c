import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { offsetOf, type Page, type PageRequest, type Plan, type Role } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { User, UserStatus, Workspace, WorkspaceWithOwner } from '../domain/accounts.js';

interface UserRow {
  id: string;
  workspace_id: string;
  email: string;
  display_name: string;
  status: UserStatus;
  role: Role;
  locale: string;
  onboarding_step: string;
  created_at: Date;
}

interface WorkspaceRow {
  id: string;
  name: string;
  plan: Plan;
  credits_balance: number;
  created_at: Date;
}

const USER_COLUMNS = 'u.id, u.workspace_id, u.email, u.display_name, u.status, u.role, u.locale, u.onboarding_step, u.created_at';
const WORKSPACE_COLUMNS = 'w.id, w.name, w.plan, w.credits_balance, w.created_at';

export interface NewUser {
  id: string;
  workspaceId: string;
  email: string;
  passwordHash: string;
  displayName: string;
  role: Role;
  locale?: string;
}

/** Users and workspaces: the accounts side of the auth context. */
@Injectable()
export class AccountsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insertWorkspace(tx: Tx, ws: { id: string; name: string; plan: Plan }): Promise<void> {
    await tx.query('INSERT INTO workspaces (id, name, plan) VALUES ($1, $2, $3)', [ws.id, ws.name, ws.plan]);
  }

  /** Throws the unique violation of users_email_lower_uq for an email already in use, in any case. */
  async insertUser(tx: Tx, u: NewUser): Promise<User> {
    const rows: UserRow[] = await tx.query(
      `INSERT INTO users AS u (id, workspace_id, email, password_hash, display_name, role, locale)
       VALUES ($1, $2, $3, $4, $5, $6, COALESCE($7, 'en'))
       RETURNING ${USER_COLUMNS}`,
      [u.id, u.workspaceId, u.email, u.passwordHash, u.displayName, u.role, u.locale ?? null],
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

  async findUserWithWorkspace(userId: string): Promise<{ user: User; workspace: Workspace } | null> {
    const rows: Array<UserRow & { ws_name: string; ws_plan: Plan; ws_credits_balance: number; ws_created_at: Date }> =
      await this.ds.query(
        `SELECT ${USER_COLUMNS}, w.name AS ws_name, w.plan AS ws_plan,
                w.credits_balance AS ws_credits_balance, w.created_at AS ws_created_at
         FROM users u JOIN workspaces w ON w.id = u.workspace_id WHERE u.id = $1`,
        [userId],
      );
    const r = rows[0];
    if (!r) return null;
    return {
      user: toUser(r),
      workspace: toWorkspace({ id: r.workspace_id, name: r.ws_name, plan: r.ws_plan, credits_balance: r.ws_credits_balance, created_at: r.ws_created_at }),
    };
  }

  async setRole(tx: Tx, userId: string, role: Role): Promise<void> {
    await tx.query('UPDATE users SET role = $2, updated_at = now() WHERE id = $1', [userId, role]);
  }

  async getWorkspace(id: string, tx?: Tx): Promise<Workspace | null> {
    const rows: WorkspaceRow[] = await (tx ?? this.ds.manager).query(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces w WHERE w.id = $1`, [id]);
    return rows[0] ? toWorkspace(rows[0]) : null;
  }

  async setPlan(id: string, plan: Plan, tx?: Tx): Promise<Workspace | null> {
    // The postgres driver answers an UPDATE with [rows, rowCount].
    const [rows]: [WorkspaceRow[], number] = await (tx ?? this.ds.manager).query(
      `UPDATE workspaces w SET plan = $2, updated_at = now() WHERE w.id = $1 RETURNING ${WORKSPACE_COLUMNS}`,
      [id, plan],
    );
    return rows[0] ? toWorkspace(rows[0]) : null;
  }

  /** Workspaces whose owner (first user) email contains `emailFragment`, case-insensitively; newest first. */
  async findWorkspacesByOwnerEmail(emailFragment: string, req: PageRequest): Promise<Page<WorkspaceWithOwner>> {
    const pattern = `%${emailFragment.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const from = `FROM workspaces w
      LEFT JOIN LATERAL (
        SELECT email FROM users WHERE workspace_id = w.id ORDER BY created_at, id LIMIT 1
      ) owner ON true
      WHERE $1 = '%%' OR lower(owner.email) LIKE $1`;
    const [rows, counted] = await Promise.all([
      this.ds.query<Array<WorkspaceRow & { owner_email: string | null }>>(
        `SELECT ${WORKSPACE_COLUMNS}, owner.email AS owner_email ${from}
         ORDER BY w.created_at DESC, w.id DESC LIMIT $2 OFFSET $3`,
        [pattern, req.pageSize, offsetOf(req)],
      ),
      this.ds.query<Array<{ total: number }>>(`SELECT count(*)::int AS total ${from}`, [pattern]),
    ]);
    return {
      items: rows.map((r) => ({ ...toWorkspace(r), ownerEmail: r.owner_email })),
      page: req.page,
      pageSize: req.pageSize,
      total: counted[0].total,
    };
  }
}

function toUser(r: UserRow): User {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    email: r.email,
    displayName: r.display_name,
    status: r.status,
    role: r.role,
    locale: r.locale,
    onboardingStep: r.onboarding_step,
    createdAt: r.created_at,
  };
}

function toWorkspace(r: WorkspaceRow): Workspace {
  return { id: r.id, name: r.name, plan: r.plan, creditsBalance: r.credits_balance, createdAt: r.created_at };
}
