import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { PasswordsRepository } from '../infrastructure/passwords.repository.js';
import { SessionsRepository } from '../infrastructure/sessions.repository.js';
import { PasswordHasher } from './password-hasher.js';
import { PasswordRules } from './password-rules.js';

/** A password being set, and what it ends: every session (a reset) or every other one (a change). */
export interface PasswordChange {
  userId: string;
  email: string;
  passwordHash: string;
  /** Why the sessions ended (`sessions.revoked_reason`). */
  reason: 'password_reset' | 'password_changed';
  /** The session that goes on (the caller's, on a change); none on a reset. */
  keepSessionId?: string;
  /** Where the notice is branded from: the workspace the user acted in. */
  workspaceId: string;
}

/**
 * What setting a new password means, wherever it comes from (a reset link or the signed-in change):
 * the registration rules, the hash, the sessions it ends, the mail it causes. Not a use case; the
 * two password services share it.
 */
@Injectable()
export class NewPassword {
  constructor(
    private readonly rules: PasswordRules,
    private readonly hasher: PasswordHasher,
    private readonly passwords: PasswordsRepository,
    private readonly sessions: SessionsRepository,
    private readonly outbox: Outbox,
    private readonly limiter: RateLimiter,
  ) {}

  /** The new password's hash, once it passes the rules of registration (400 `validation_failed` naming `password`). Slow on purpose: call it before a transaction. */
  async hashAcceptable(password: string, email: string): Promise<string> {
    await this.rules.assertNotGuessable(password, email);
    return this.hasher.hash(password);
  }

  /**
   * Stores the hash, drops any reset token still out, ends the sessions and records
   * `account.password_changed`, in the caller's transaction. Answers the workspaces whose access
   * stamps `afterCommit` must move.
   */
  async store(tx: Tx, change: PasswordChange): Promise<string[]> {
    await this.passwords.setPasswordHash(tx, change.userId, change.passwordHash);
    await this.passwords.dropResets(tx, change.userId);
    const workspaces = await this.sessions.revokeUserSessions(tx, change.userId, change.reason, change.keepSessionId);
    await this.outbox.record(tx, {
      type: 'account.password_changed',
      workspaceId: change.workspaceId,
      payload: { userId: change.userId, email: change.email },
    });
    return workspaces;
  }

  /** Moves the access stamps, so every instance checks those sessions again and their open sockets close. */
  async afterCommit(workspaces: string[]): Promise<void> {
    for (const workspaceId of workspaces) await this.limiter.bumpAccessStamp(workspaceId);
  }
}
