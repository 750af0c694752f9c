import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, isId, type Page, type PageRequest } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { AuditLog } from '../../audit/index.js';
import { invitationProblem, invitationProblemById, isInvitationToken, type Invitation, type ReceivedInvitation } from '../domain/invitation.js';
import type { Organisation, Person } from '../domain/organisation.js';
import { OrganisationsRepository } from '../infrastructure/organisations.repository.js';
import { hashInvitationToken } from './members.service.js';

const MESSAGES = {
  not_found: 'No such invitation, or it was already answered or revoked.',
  invitation_expired: 'This invitation has expired; ask for a new one.',
  invitation_email_mismatch: 'This invitation is for another email address.',
} as const;

function checked(found: Invitation | null, problem: keyof typeof MESSAGES | null): Invitation {
  if (problem || !found) throw new AppError(problem ?? 'not_found', MESSAGES[problem ?? 'not_found']);
  return found;
}

/**
 * The invitee's side of an invitation: their inbox, and answering one. An invitation is answered
 * by its id (signed in as its email) or by its token (from a link, or while registering); either
 * way it is answered once, before it expires, by the email it was sent to (case ignored).
 */
@Injectable()
export class InvitationsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: OrganisationsRepository,
    private readonly audit: AuditLog,
    private readonly limiter: RateLimiter,
    private readonly outbox: Outbox,
  ) {}

  async listReceived(userId: string, page: PageRequest): Promise<Page<ReceivedInvitation>> {
    const user = await this.userOf(userId);
    return this.repo.listReceived(user.email, page);
  }

  /** `ref` is an invitation id or token. */
  async accept(ref: string, userId: string): Promise<Organisation> {
    const org = await inTransaction(this.ds, async (tx) => {
      const user = await this.userOf(userId, tx);
      return this.acceptFound(tx, await this.answerable(tx, ref, user), user);
    });
    await this.limiter.bumpAccessStamp(org.id);
    return org;
  }

  /** `ref` is an invitation id or token. The inviting workspace's audit log records the refusal. */
  async decline(ref: string, userId: string): Promise<void> {
    await inTransaction(this.ds, async (tx) => {
      const user = await this.userOf(userId, tx);
      const found = await this.answerable(tx, ref, user);
      const declined = await this.repo.markDeclined(tx, found.id);
      if (!declined) throw new AppError('not_found', MESSAGES.not_found);
      const details = { role: declined.role };
      await this.audit.record(tx, { workspaceId: declined.workspaceId, actorUserId: user.id, action: 'invitation.declined', targetType: 'invitation', targetId: declined.id, details });
    });
  }

  /**
   * Registration's path: in the caller's transaction, so a refusal throws and the new account goes
   * with it. A token only: the id is no secret, and the new account's email is not proven yet.
   */
  async acceptIn(tx: Tx, token: string, user: Person): Promise<Organisation> {
    return this.acceptFound(tx, await this.byToken(tx, token, user), user);
  }

  /** The invitation `ref` (an id or a token) names, if this user may answer it now. */
  private answerable(tx: Tx, ref: string, user: Person): Promise<Invitation> {
    return isId('inv', ref) ? this.byId(tx, ref, user) : this.byToken(tx, ref, user);
  }

  /** Someone else's id reads as not found: ids are no secret, and the invitation is not theirs to see. */
  private async byId(tx: Tx, id: string, user: Person): Promise<Invitation> {
    const found = await this.repo.findInvitation(id, tx);
    return checked(found, invitationProblemById(found, user.email, new Date()));
  }

  /** Someone else's token reads as a mismatch (403): whoever holds the token knows it exists. */
  private async byToken(tx: Tx, token: string, user: Person): Promise<Invitation> {
    const found = isInvitationToken(token) ? await this.repo.findInvitationByHash(hashInvitationToken(token), tx) : null;
    return checked(found, invitationProblem(found, user.email, new Date()));
  }

  private async acceptFound(tx: Tx, found: Invitation, user: Person): Promise<Organisation> {
    const accepted = await this.repo.markAccepted(tx, found.id, user.id);
    // Lost a race with another answer or a revocation, or expired between the read and the update.
    if (!accepted) throw new AppError('not_found', MESSAGES.not_found);
    const joined = await this.repo.insertMembership(tx, accepted.workspaceId, user.id, accepted.role);
    // The customer event of the new member, in the transaction that adds them (none when they were one already).
    if (joined) await this.outbox.record(tx, { type: 'member.added', workspaceId: accepted.workspaceId, payload: { userId: user.id, role: accepted.role } });
    await this.audit.record(tx, {
      workspaceId: accepted.workspaceId,
      actorUserId: user.id,
      action: 'invitation.accepted',
      targetType: 'invitation',
      targetId: accepted.id,
      details: { role: accepted.role },
    });
    return (await this.repo.findForMember(accepted.workspaceId, user.id, tx))!;
  }

  private async userOf(userId: string, tx?: Tx): Promise<Person> {
    const user = await this.repo.findUser(userId, tx);
    if (!user) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
    return user;
  }
}
