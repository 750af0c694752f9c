import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { offsetOf, type Page, type PageRequest, type Plan, type WorkspaceRole } from '../../../core/index.js';
import { changedRows, type Tx } from '../../../platform/database/index.js';
import type { Invitation, ReceivedInvitation } from '../domain/invitation.js';
import type { Member, Organisation, Person } from '../domain/organisation.js';

interface OrganisationRow {
  id: string;
  name: string;
  slug: string | null;
  plan: Plan;
  require_mfa: boolean;
  created_at: Date;
  role: WorkspaceRole;
}

interface InvitationRow {
  id: string;
  workspace_id: string;
  email: string;
  role: WorkspaceRole;
  invited_by: string | null;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  declined_at: Date | null;
  created_at: Date;
}

interface ReceivedRow extends InvitationRow {
  workspace_name: string;
  inviter_email: string | null;
  inviter_name: string | null;
}

const ORG_COLUMNS = 'w.id, w.name, w.slug, w.plan, w.require_mfa, w.created_at, m.role';
const invitationColumns = (a = '') =>
  ['id', 'workspace_id', 'email', 'role', 'invited_by', 'expires_at', 'accepted_at', 'revoked_at', 'declined_at', 'created_at'].map((c) => `${a}${c}`).join(', ');
const INVITATION_COLUMNS = invitationColumns();
/** Neither accepted, revoked nor declined (expiry is checked apart: the partial index cannot hold the clock). */
const openInvitation = (a = '') => `${a}accepted_at IS NULL AND ${a}revoked_at IS NULL AND ${a}declined_at IS NULL`;
const OPEN = openInvitation();

function toOrganisation(r: OrganisationRow): Organisation {
  return { id: r.id, name: r.name, slug: r.slug, plan: r.plan, requireMfa: r.require_mfa, createdAt: r.created_at, role: r.role };
}

function toInvitation(r: InvitationRow): Invitation {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    email: r.email,
    role: r.role,
    invitedBy: r.invited_by,
    expiresAt: r.expires_at,
    acceptedAt: r.accepted_at,
    revokedAt: r.revoked_at,
    declinedAt: r.declined_at,
    createdAt: r.created_at,
  };
}

function toReceived(r: ReceivedRow): ReceivedInvitation {
  const inviter = r.inviter_email === null ? null : { email: r.inviter_email, displayName: r.inviter_name ?? '' };
  return { invitation: toInvitation(r), organisationName: r.workspace_name, inviter };
}

/**
 * Workspaces as organisations, their memberships and invitations. Every method names the workspace:
 * a workspace the user is not a member of reads as missing.
 */
@Injectable()
export class OrganisationsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private m(tx?: Tx): Tx {
    return tx ?? this.ds.manager;
  }

  async listForUser(userId: string): Promise<Organisation[]> {
    const rows: OrganisationRow[] = await this.ds.query(
      `SELECT ${ORG_COLUMNS} FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
       WHERE m.user_id = $1 ORDER BY m.created_at, w.id`,
      [userId],
    );
    return rows.map(toOrganisation);
  }

  async findForMember(workspaceId: string, userId: string, tx?: Tx): Promise<Organisation | null> {
    const rows: OrganisationRow[] = await this.m(tx).query(
      `SELECT ${ORG_COLUMNS} FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
       WHERE m.workspace_id = $1 AND m.user_id = $2`,
      [workspaceId, userId],
    );
    return rows[0] ? toOrganisation(rows[0]) : null;
  }

  async insertWorkspace(tx: Tx, ws: { id: string; name: string; ownerId: string }): Promise<void> {
    await tx.query(`INSERT INTO workspaces (id, name, plan) VALUES ($1, $2, 'starter')`, [ws.id, ws.name]);
    await tx.query(`INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, 'owner')`, [ws.id, ws.ownerId]);
  }

  /** Throws the unique violation of workspaces_slug_uq for a slug another workspace has. */
  async updateWorkspace(tx: Tx, id: string, change: { name?: string; slug?: string }): Promise<void> {
    await tx.query(
      `UPDATE workspaces SET name = COALESCE($2, name), slug = COALESCE($3, slug), updated_at = now() WHERE id = $1`,
      [id, change.name ?? null, change.slug ?? null],
    );
  }

  async setRequireMfa(tx: Tx, id: string, requireMfa: boolean): Promise<void> {
    await tx.query('UPDATE workspaces SET require_mfa = $2, updated_at = now() WHERE id = $1', [id, requireMfa]);
  }

  /** Whether the user has two-factor sign-in on (an owner must, to require it of others). */
  async userHasMfa(tx: Tx, userId: string): Promise<boolean> {
    const rows: Array<{ on: boolean }> = await tx.query('SELECT totp_enabled_at IS NOT NULL AS on FROM users WHERE id = $1', [userId]);
    return rows[0]?.on ?? false;
  }

  /**
   * Serialises the workspace's membership changes until the transaction ends: the seat count and
   * the owner count each change reads cannot move under it. Answers the members' roles.
   */
  async lockMemberships(tx: Tx, workspaceId: string): Promise<Map<string, WorkspaceRole>> {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('memberships:' || $1))`, [workspaceId]);
    const rows: Array<{ user_id: string; role: WorkspaceRole }> = await tx.query(
      `SELECT user_id, role FROM memberships WHERE workspace_id = $1 FOR UPDATE`,
      [workspaceId],
    );
    return new Map(rows.map((r) => [r.user_id, r.role]));
  }

  async listMembers(workspaceId: string, tx?: Tx): Promise<Member[]> {
    const rows: Array<{ user_id: string; email: string; display_name: string; role: WorkspaceRole; joined_at: Date }> = await this.m(tx).query(
      `SELECT m.user_id, u.email, u.display_name, m.role, m.created_at AS joined_at
       FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.workspace_id = $1 ORDER BY m.created_at, m.user_id`,
      [workspaceId],
    );
    return rows.map((r) => ({ userId: r.user_id, email: r.email, displayName: r.display_name, role: r.role, joinedAt: r.joined_at }));
  }

  async findMember(workspaceId: string, userId: string, tx?: Tx): Promise<Member | null> {
    return (await this.listMembers(workspaceId, tx)).find((m) => m.userId === userId) ?? null;
  }

  /** Answers false when the user is already a member. */
  async insertMembership(tx: Tx, workspaceId: string, userId: string, role: WorkspaceRole): Promise<boolean> {
    const rows: unknown[] = await tx.query(
      `INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING user_id`,
      [workspaceId, userId, role],
    );
    return rows.length === 1;
  }

  async setMemberRole(tx: Tx, workspaceId: string, userId: string, role: WorkspaceRole): Promise<void> {
    await tx.query(`UPDATE memberships SET role = $3, updated_at = now() WHERE workspace_id = $1 AND user_id = $2`, [workspaceId, userId, role]);
  }

  async deleteMembership(tx: Tx, workspaceId: string, userId: string): Promise<void> {
    await tx.query(`DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2`, [workspaceId, userId]);
  }

  async findUserByEmail(email: string, tx?: Tx): Promise<Person | null> {
    const rows: Person[] = await this.m(tx).query(`SELECT id, email FROM users WHERE lower(email) = lower($1)`, [email]);
    return rows[0] ?? null;
  }

  async findUser(id: string, tx?: Tx): Promise<Person | null> {
    const rows: Person[] = await this.m(tx).query(`SELECT id, email FROM users WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Invitations not yet answered or revoked, and not expired. */
  async listPendingInvitations(workspaceId: string, tx?: Tx): Promise<Invitation[]> {
    const rows: InvitationRow[] = await this.m(tx).query(
      `SELECT ${INVITATION_COLUMNS} FROM invitations
       WHERE workspace_id = $1 AND ${OPEN} AND expires_at > now() ORDER BY created_at, id`,
      [workspaceId],
    );
    return rows.map(toInvitation);
  }

  async insertInvitation(tx: Tx, inv: Pick<Invitation, 'id' | 'workspaceId' | 'email' | 'role' | 'invitedBy' | 'expiresAt'> & { tokenHash: string }): Promise<Invitation> {
    const rows: InvitationRow[] = await tx.query(
      `INSERT INTO invitations (id, workspace_id, email, role, token_hash, invited_by, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${INVITATION_COLUMNS}`,
      [inv.id, inv.workspaceId, inv.email, inv.role, inv.tokenHash, inv.invitedBy, inv.expiresAt],
    );
    return toInvitation(rows[0]);
  }

  async findInvitationByHash(tokenHash: string, tx?: Tx): Promise<Invitation | null> {
    const rows: InvitationRow[] = await this.m(tx).query(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE token_hash = $1`, [tokenHash]);
    return rows[0] ? toInvitation(rows[0]) : null;
  }

  async findInvitation(id: string, tx?: Tx): Promise<Invitation | null> {
    const rows: InvitationRow[] = await this.m(tx).query(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE id = $1`, [id]);
    return rows[0] ? toInvitation(rows[0]) : null;
  }

  /**
   * The pending, unexpired invitations sent to `email` (case ignored), across workspaces, oldest
   * first, with the workspace's name and the inviter as they are now.
   */
  async listReceived(email: string, req: PageRequest): Promise<Page<ReceivedInvitation>> {
    const where = `WHERE lower(i.email) = lower($1) AND ${openInvitation('i.')} AND i.expires_at > now()`;
    const rows: ReceivedRow[] = await this.ds.query(
      `SELECT ${invitationColumns('i.')}, w.name AS workspace_name, u.email AS inviter_email, u.display_name AS inviter_name
       FROM invitations i JOIN workspaces w ON w.id = i.workspace_id LEFT JOIN users u ON u.id = i.invited_by
       ${where} ORDER BY i.created_at, i.id LIMIT $2 OFFSET $3`,
      [email, req.pageSize, offsetOf(req)],
    );
    const counted: Array<{ total: number }> = await this.ds.query(`SELECT count(*)::int AS total FROM invitations i ${where}`, [email]);
    return { items: rows.map(toReceived), page: req.page, pageSize: req.pageSize, total: counted[0].total };
  }

  /** Single use: only one of two concurrent answers (or a revocation) changes the row; the others answer null. */
  async markAccepted(tx: Tx, invitationId: string, userId: string): Promise<Invitation | null> {
    const rows = await changedRows<InvitationRow>(
      tx,
      `UPDATE invitations SET accepted_at = now(), accepted_by = $2
       WHERE id = $1 AND ${OPEN} AND expires_at > now() RETURNING ${INVITATION_COLUMNS}`,
      [invitationId, userId],
    );
    return rows[0] ? toInvitation(rows[0]) : null;
  }

  async markDeclined(tx: Tx, invitationId: string): Promise<Invitation | null> {
    const rows = await changedRows<InvitationRow>(
      tx,
      `UPDATE invitations SET declined_at = now() WHERE id = $1 AND ${OPEN} AND expires_at > now() RETURNING ${INVITATION_COLUMNS}`,
      [invitationId],
    );
    return rows[0] ? toInvitation(rows[0]) : null;
  }

  /** An expired invitation may still be revoked (it closes it); an answered or revoked one may not. */
  async markRevoked(tx: Tx, workspaceId: string, invitationId: string, userId: string): Promise<Invitation | null> {
    const rows = await changedRows<InvitationRow>(
      tx,
      `UPDATE invitations SET revoked_at = now(), revoked_by = $3
       WHERE id = $2 AND workspace_id = $1 AND ${OPEN} RETURNING ${INVITATION_COLUMNS}`,
      [workspaceId, invitationId, userId],
    );
    return rows[0] ? toInvitation(rows[0]) : null;
  }
}
