import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, memberLimitReached, newId, roleAtLeast, type WorkspaceRole } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { AuditLog } from '../../audit/index.js';
import { sameEmail, type Invitation } from '../domain/invitation.js';
import { hasFreeSeat, MEMBER_MANAGER_ROLE, memberChangeProblem, memberLimitOf } from '../domain/membership-rules.js';
import type { Member, Organisation } from '../domain/organisation.js';
import { OrganisationsRepository } from '../infrastructure/organisations.repository.js';
import { insufficientRole, OrganisationAccess } from './organisation-access.js';

export interface MemberList {
  members: Member[];
  /** Only for admins and owners; null for others. */
  invitations: Invitation[] | null;
}

/** A new invitation and its token, which is shown this once and stored only as a hash. */
export interface IssuedInvitation {
  invitation: Invitation;
  token: string;
}

export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * A workspace's members: inviting (and revoking invitations), changing roles, removing. Each change
 * locks the workspace's memberships, checks the rules against what it locked, writes its audit
 * entry in the same transaction, and after a role change or removal moves the access stamp so
 * sessions see the new roles.
 */
@Injectable()
export class MembersService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: OrganisationsRepository,
    private readonly access: OrganisationAccess,
    private readonly audit: AuditLog,
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
    private readonly outbox: Outbox,
  ) {}

  async list(workspaceId: string, userId: string): Promise<MemberList> {
    const org = await this.access.require(workspaceId, userId, 'viewer');
    const members = await this.repo.listMembers(workspaceId);
    const invitations = roleAtLeast(org.role, 'admin') ? await this.repo.listPendingInvitations(workspaceId) : null;
    return { members, invitations };
  }

  /** One member of the workspace as it is now, or null when they are not one (for the member events' bodies). */
  member(workspaceId: string, userId: string): Promise<Member | null> {
    return this.repo.findMember(workspaceId, userId);
  }

  /**
   * Nobody joins without consent: an email always gets an invitation the invitee must accept.
   * Whether the email has an account changes nothing in the answer, nor in the work done for it
   * (which is why there is no inviting by user id: an unknown id has no email to invite).
   */
  async invite(workspaceId: string, actorId: string, email: string, role: WorkspaceRole): Promise<IssuedInvitation> {
    return inTransaction(this.ds, async (tx) => {
      const org = await this.lockAsManager(tx, workspaceId, actorId);
      await this.assertNewcomer(tx, org, email);
      return this.issue(tx, org, actorId, email, role);
    });
  }

  /** By an owner, as inviting is. A closed invitation, or one of another workspace, is not found. */
  async revokeInvitation(workspaceId: string, actorId: string, invitationId: string): Promise<void> {
    await inTransaction(this.ds, async (tx) => {
      await this.lockAsManager(tx, workspaceId, actorId);
      const revoked = await this.repo.markRevoked(tx, workspaceId, invitationId, actorId);
      if (!revoked) throw AppError.notFound('Invitation');
      const details = { email: revoked.email, role: revoked.role };
      await this.audit.record(tx, { workspaceId, actorUserId: actorId, action: 'invitation.revoked', targetType: 'invitation', targetId: revoked.id, details });
    });
  }

  async changeRole(workspaceId: string, actorId: string, targetId: string, role: WorkspaceRole): Promise<Member> {
    const member = await inTransaction(this.ds, async (tx) => {
      const target = await this.checkedChange(tx, workspaceId, actorId, targetId, role);
      await this.repo.setMemberRole(tx, workspaceId, targetId, role);
      await this.audit.record(tx, { workspaceId, actorUserId: actorId, action: 'member.role_changed', targetType: 'user', targetId, details: { from: target.role, to: role } });
      return { ...target, role };
    });
    await this.limiter.bumpAccessStamp(workspaceId);
    return member;
  }

  /** By an owner, or by the member themself (leaving); `member.removed` (the member as it was) in the same transaction. */
  async remove(workspaceId: string, actorId: string, targetId: string): Promise<void> {
    await inTransaction(this.ds, async (tx) => {
      const target = await this.checkedChange(tx, workspaceId, actorId, targetId, null);
      await this.repo.deleteMembership(tx, workspaceId, targetId);
      const details = { role: target.role, left: actorId === targetId };
      await this.audit.record(tx, { workspaceId, actorUserId: actorId, action: 'member.removed', targetType: 'user', targetId, details });
      await this.outbox.record(tx, {
        type: 'member.removed',
        workspaceId,
        payload: { userId: target.userId, role: target.role, email: target.email, displayName: target.displayName, joinedAt: target.joinedAt.toISOString() },
      });
    });
    await this.limiter.bumpAccessStamp(workspaceId);
  }

  /** Locks the memberships, then applies the rules to what is locked; answers the target as it was. */
  private async checkedChange(tx: Tx, workspaceId: string, actorId: string, targetId: string, newRole: WorkspaceRole | null): Promise<Member> {
    await this.access.require(workspaceId, actorId, 'viewer', tx);
    const roles = await this.repo.lockMemberships(tx, workspaceId);
    const actorRole = roles.get(actorId);
    const target = await this.repo.findMember(workspaceId, targetId, tx);
    if (!actorRole) throw AppError.notFound('Organization');
    if (!target) throw AppError.notFound('Member');
    const ownerCount = [...roles.values()].filter((r) => r === 'owner').length;
    const problem = memberChangeProblem({ actorId, actorRole, targetId, targetRole: target.role, newRole, ownerCount });
    if (problem === 'insufficient_role') throw insufficientRole(MEMBER_MANAGER_ROLE, actorRole);
    if (problem === 'last_owner') throw new AppError('last_owner', 'A workspace must keep at least one owner; make another member owner first.');
    return target;
  }

  private async lockAsManager(tx: Tx, workspaceId: string, actorId: string): Promise<Organisation> {
    const org = await this.access.require(workspaceId, actorId, 'viewer', tx);
    await this.repo.lockMemberships(tx, workspaceId);
    if (!roleAtLeast(org.role, MEMBER_MANAGER_ROLE)) throw insufficientRole(MEMBER_MANAGER_ROLE, org.role);
    return org;
  }

  /** Not a member yet, not invited yet, and a seat free (members and pending invitations count). */
  private async assertNewcomer(tx: Tx, org: Organisation, email: string): Promise<void> {
    const members = await this.repo.listMembers(org.id, tx);
    const pending = await this.repo.listPendingInvitations(org.id, tx);
    if (members.some((m) => sameEmail(m.email, email))) throw new AppError('member_exists', 'This email belongs to a member already.');
    if (pending.some((i) => sameEmail(i.email, email))) throw new AppError('member_exists', 'This email already has a pending invitation.');
    if (!hasFreeSeat(org.plan, members.length, pending.length)) {
      throw memberLimitReached(org.plan, memberLimitOf(org.plan));
    }
  }

  /** The invitation, its audit entry and its mail (sent after commit, through the outbox) in one transaction. */
  private async issue(tx: Tx, org: Organisation, actorId: string, email: string, role: WorkspaceRole): Promise<IssuedInvitation> {
    const workspaceId = org.id;
    const token = `pinv_${randomBytes(32).toString('base64url')}`;
    const expiresAt = new Date(Date.now() + this.config.invitationTtlHours * 3600_000);
    const invitation = await this.repo.insertInvitation(tx, { id: newId('inv'), workspaceId, email, role, invitedBy: actorId, expiresAt, tokenHash: hashInvitationToken(token) });
    await this.audit.record(tx, { workspaceId, actorUserId: actorId, action: 'member.invited', targetType: 'invitation', targetId: invitation.id, details: { email, role } });
    const inviter = await this.repo.findMember(workspaceId, actorId, tx);
    await this.outbox.record(tx, {
      type: 'organisation.invitation_created',
      workspaceId,
      payload: { invitationId: invitation.id, email, role, inviterName: inviter?.displayName || inviter?.email || 'A teammate', workspaceName: org.name },
      secret: token,
    });
    return { invitation, token };
  }
}
