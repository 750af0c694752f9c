import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../../config/index.js';
import { AppError, type Caller } from '../../../../core/index.js';
import { inTransaction } from '../../../../platform/database/index.js';
import { Outbox } from '../../../../platform/outbox/index.js';
import { RateLimiter } from '../../../../platform/rate-limit/index.js';
import { planAccountDeletion } from '../../domain/data-rights.js';
import { DataRightsRepository } from '../../infrastructure/data-rights.repository.js';
import { PasswordHasher } from '../password-hasher.js';

export interface ScheduledDeletion {
  purgeAt: Date;
  deleteWorkspaces: string[];
  leaveWorkspaces: string[];
}

/** Scheduling an account's deletion (after the grace period) and cancelling it by signing in. */
@Injectable()
export class AccountDeletionService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: DataRightsRepository,
    private readonly hasher: PasswordHasher,
    private readonly limiter: RateLimiter,
    private readonly outbox: Outbox,
    private readonly config: AppConfig,
  ) {}

  /**
   * Checks the password (failures count like failed sign-ins), refuses while the account is the only
   * owner of a workspace with other members, then schedules the purge, ends every session and
   * records `account.deletion_scheduled`, all in one transaction.
   */
  async schedule(caller: Caller, password: string, now = new Date()): Promise<ScheduledDeletion> {
    const credentials = await this.repo.findPasswordHash(caller.userId);
    if (!credentials) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
    await this.limiter.assertSignInAllowed(credentials.email);
    if (!(await this.hasher.verify(credentials.passwordHash, password))) {
      await this.limiter.recordSignInFailure(credentials.email);
      throw new AppError('invalid_credentials', 'The password is not correct.');
    }
    const purgeAt = new Date(now.getTime() + this.config.dataRights.deletionGraceMs);
    const { plan, stamps } = await inTransaction(this.ds, async (tx) => {
      const plan = planAccountDeletion(await this.repo.membershipCounts(caller.userId, tx));
      if (!plan.ok) {
        throw new AppError(
          'workspace_has_members',
          'You are the only owner of a workspace that has other members: transfer its ownership or remove its members first.',
          { workspace_id: plan.blockedBy },
        );
      }
      await this.repo.scheduleDeletion(tx, caller.userId, purgeAt);
      const stamps = await this.repo.revokeAllSessions(tx, caller.userId, 'account_deletion');
      await this.outbox.record(tx, {
        type: 'account.deletion_scheduled',
        workspaceId: caller.workspaceId,
        payload: { userId: caller.userId, email: credentials.email, purgeAt: purgeAt.toISOString() },
      });
      return { plan, stamps };
    });
    // Sockets and cached session checks of every workspace the sessions were in end now.
    for (const workspaceId of stamps) await this.limiter.bumpAccessStamp(workspaceId);
    return { purgeAt, deleteWorkspaces: plan.deleteWorkspaces, leaveWorkspaces: plan.leaveWorkspaces };
  }

  /** Called on every successful sign-in: true when it cancelled a scheduled deletion. */
  cancelOnSignIn(userId: string): Promise<boolean> {
    return this.repo.cancelDeletion(userId);
  }
}
