import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { AuditLog } from '../../audit/index.js';
import { invitationProblem, isInvitationToken } from '../domain/invitation.js';
import type { Organisation } from '../domain/organisation.js';
import { OrganisationsRepository } from '../infrastructure/organisations.repository.js';
import { hashInvitationToken } from './members.service.js';

const MESSAGES = {
  not_found: 'No such invitation, or it was already used.',
  invitation_expired: 'This invitation has expired; ask for a new one.',
  invitation_email_mismatch: 'This invitation is for another email address.',
} as const;

/**
 * Accepting an invitation: by a signed-in user, or while registering. The token works once (a
 * conditional update), before it expires, for the email it was sent to (case ignored).
 */
@Injectable()
export class InvitationsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: OrganisationsRepository,
    private readonly audit: AuditLog,
    private readonly limiter: RateLimiter,
  ) {}

  async accept(token: string, userId: string): Promise<Organisation> {
    const org = await inTransaction(this.ds, async (tx) => {
      const user = await this.repo.findUser(userId, tx);
      if (!user) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
      return this.acceptIn(tx, token, user);
    });
    await this.limiter.bumpAccessStamp(org.id);
    return org;
  }

  /** In the caller's transaction: a refusal throws, and the caller's work (a new account) goes with it. */
  async acceptIn(tx: Tx, token: string, user: { id: string; email: string }): Promise<Organisation> {
    const found = isInvitationToken(token) ? await this.repo.findInvitationByHash(hashInvitationToken(token), tx) : null;
    const problem = invitationProblem(found, user.email, new Date());
    if (problem) throw new AppError(problem, MESSAGES[problem]);
    const accepted = await this.repo.markAccepted(tx, found!.id, user.id);
    // Lost a race with another acceptance, or expired between the read and the update.
    if (!accepted) throw new AppError('not_found', MESSAGES.not_found);
    await this.repo.insertMembership(tx, accepted.workspaceId, user.id, accepted.role);
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
}
