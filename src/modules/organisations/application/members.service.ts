import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, memberLimitReached, newId, roleAtLeast, type WorkspaceRole } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { AuditLog } from '../../audit/index.js';
import type { Invitation } from '../domain/invitation.js';
import { hasFreeSeat, MEMBER_MANAGER_ROLE, memberChangeProblem, memberLimitOf } from '../domain/membership-rules.js';
import type { Member, Organisation, Person } from '../domain/organisation.js';
import { OrganisationsRepository } from '../infrastructure/organisations.repository.js';
import { insufficientRole, OrganisationAccess } from './organisation-access.js';

export interface MemberList {
  members: Member[];
  /** Only for admins and owners; null for others. */
  invitations: Invitation[] | null;
}

export type Addition = { kind: 'member'; member: Member } | { kind: 'invitation'; invitation: Invitation; token: string };

export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * A workspace's members: adding (or inviting), changing roles, removing. Each change locks the
 * workspace's memberships, checks the rules against what it locked, writes its audit entry in the
 * same transaction, and after commit moves the access stamp so sessions see the new roles.
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
  ) {}

  async list(workspaceId: string, userId: string): Promise<MemberList> {
    const org = await this.access.require(workspaceId, userId, 'viewer');
    const members = await this.repo.listMembers(workspaceId);
    const invitations = roleAtLeast(org.role, 'admin') ? await this.repo.listPendingInvitations(workspaceId) : null;
    return { members, invitations };
  }

  /** An existing user (by id or email) joins at once; an unknown email gets an invitation. */
  async add(workspaceId: string, actorId: string, who: { email?: string; userId?: string }, role: WorkspaceRole): Promise<Addition> {
    const added = await inTransaction(this.ds, async (tx) => {
      const org = await this.lockAsManager(tx, workspaceId, actorId);
      const person = await this.personOf(tx, who);
      await this.assertNewcomer(tx, org, person, who.email);
      if (person) return this.join(tx, workspaceId, actorId, person, role);
      return this.invite(tx, workspaceId, actorId, who.email!, role);
    });
    await this.limiter.bumpAccessStamp(workspaceId);
    return added;
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

  /** By an owner, or by the member themself (leaving). */
  async remove(workspaceId: string, actorId: string, targetId: string): Promise<void> {
    await inTransaction(this.ds, async (tx) => {
      const target = await this.checkedChange(tx, workspaceId, actorId, targetId, null);
      await this.repo.deleteMembership(tx, workspaceId, targetId);
      const details = { role: target.role, left: actorId === targetId };
      await this.audit.record(tx, { workspaceId, actorUserId: actorId, action: 'member.removed', targetType: 'user', targetId, details });
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

  private async personOf(tx: Tx, who: { email?: string; userId?: string }): Promise<Person | null> {
    if (!who.userId) return this.repo.findUserByEmail(who.email!, tx);
    const person = await this.repo.findUser(who.userId, tx);
    if (!person) throw AppError.notFound('User');
    return person;
  }

  /** Not a member yet, not invited yet, and a seat free (members and pending invitations count). */
  private async assertNewcomer(tx: Tx, org: Organisation, person: Person | null, email: string | undefined): Promise<void> {
    const members = await this.repo.listMembers(org.id, tx);
    const pending = await this.repo.listPendingInvitations(org.id, tx);
    if (person && members.some((m) => m.userId === person.id)) throw new AppError('member_exists', 'This user is already a member.');
    const address = (person?.email ?? email ?? '').toLowerCase();
    if (pending.some((i) => i.email.toLowerCase() === address)) throw new AppError('member_exists', 'This email already has a pending invitation.');
    if (!hasFreeSeat(org.plan, members.length, pending.length)) {
      throw memberLimitReached(org.plan, memberLimitOf(org.plan));
    }
  }

  private async join(tx: Tx, workspaceId: string, actorId: string, person: Person, role: WorkspaceRole): Promise<Addition> {
    await this.repo.insertMembership(tx, workspaceId, person.id, role);
    await this.audit.record(tx, { workspaceId, actorUserId: actorId, action: 'member.added', targetType: 'user', targetId: person.id, details: { role } });
    return { kind: 'member', member: (await this.repo.findMember(workspaceId, person.id, tx))! };
  }

  private async invite(tx: Tx, workspaceId: string, actorId: string, email: string, role: WorkspaceRole): Promise<Addition> {
    const token = `pinv_${randomBytes(32).toString('base64url')}`;
    const expiresAt = new Date(Date.now() + this.config.invitationTtlHours * 3600_000);
    const invitation = await this.repo.insertInvitation(tx, { id: newId('inv'), workspaceId, email, role, invitedBy: actorId, expiresAt, tokenHash: hashInvitationToken(token) });
    await this.audit.record(tx, { workspaceId, actorUserId: actorId, action: 'member.invited', targetType: 'invitation', targetId: invitation.id, details: { email, role } });
    return { kind: 'invitation', invitation, token };
  }
}
