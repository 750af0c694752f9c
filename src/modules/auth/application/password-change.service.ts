import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, type Caller } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { Budgets, type Budget } from '../../../platform/rate-limit/index.js';
import { PasswordsRepository } from '../infrastructure/passwords.repository.js';
import { NewPassword } from './new-password.js';
import { PasswordHasher } from './password-hasher.js';

/** A signed-in user changes their password, proving they know the current one. */
@Injectable()
export class PasswordChangeService {
  private readonly failures: Budget;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly passwords: PasswordsRepository,
    private readonly hasher: PasswordHasher,
    private readonly newPassword: NewPassword,
    private readonly budgets: Budgets,
    config: AppConfig,
  ) {
    this.failures = {
      name: 'pw-change-fail-user',
      limit: config.passwords.changeFailuresPerUser,
      windowSeconds: 15 * 60,
      message: 'Too many wrong current passwords; try again later.',
    };
  }

  /**
   * A wrong current password is 403 `current_password_incorrect` and counts against the user's
   * budget (past it, even the right one waits: a stolen session cannot guess the password). The
   * caller's session goes on; every other session of the user ends.
   */
  async change(caller: Caller, currentPassword: string, password: string): Promise<void> {
    await this.budgets.assertOpen(this.failures, caller.userId);
    const credentials = await this.passwords.findPasswordHash(caller.userId);
    if (!credentials) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
    if (!(await this.hasher.verify(credentials.passwordHash, currentPassword))) {
      await this.budgets.record(this.failures, caller.userId);
      throw new AppError('current_password_incorrect', 'The current password is not correct.');
    }
    const passwordHash = await this.newPassword.hashAcceptable(password, credentials.email);
    const ended = await inTransaction(this.ds, (tx) =>
      this.newPassword.store(tx, {
        userId: caller.userId,
        email: credentials.email,
        passwordHash,
        reason: 'password_changed',
        keepSessionId: caller.sessionId,
        workspaceId: caller.workspaceId,
      }),
    );
    await this.newPassword.afterCommit(ended);
  }
}
