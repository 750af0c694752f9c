import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, type Caller } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { normalizeEmail } from '../domain/password-policy.js';
import { AccountsRepository } from '../infrastructure/accounts.repository.js';
import { EmailTokensRepository } from '../infrastructure/email-tokens.repository.js';
import { emailTaken, EmailVerificationService } from './email-verification.service.js';
import { PasswordHasher } from './password-hasher.js';

export interface EmailChangeRequested {
  newEmail: string;
  expiresAt: Date;
}

/**
 * `PUT /auth/email`: the password proves the caller, a link mailed to the new address proves that
 * address; the account moves only when that link is presented (EmailVerificationService.confirm).
 */
@Injectable()
export class EmailChangeService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly tokens: EmailTokensRepository,
    private readonly verification: EmailVerificationService,
    private readonly hasher: PasswordHasher,
    private readonly limiter: RateLimiter,
  ) {}

  async request(caller: Caller, password: string, emailInput: string): Promise<EmailChangeRequested> {
    const newEmail = normalizeEmail(emailInput);
    const user = await this.accounts.findCredentialsById(caller.userId);
    if (!user) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
    // Wrong passwords here count with failed sign-ins: a stolen session cannot guess the password faster than a login could.
    await this.limiter.assertSignInAllowed(user.email);
    if (!(await this.hasher.verify(user.passwordHash, password))) {
      await this.limiter.recordSignInFailure(user.email);
      throw new AppError('current_password_incorrect', 'The current password is not correct.');
    }
    if (newEmail.toLowerCase() === user.email.toLowerCase()) {
      throw new AppError('validation_failed', 'This is already your email address.', [{ field: 'email', message: 'email is already your address' }]);
    }
    const holder = await this.accounts.findCredentialsByEmail(newEmail);
    if (holder) throw emailTaken();
    return inTransaction(this.ds, async (tx) => {
      if (!(await this.accounts.lockUser(tx, caller.userId))) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
      await this.verification.assertAllowance(tx, caller.userId, 'change');
      // Only the newest pending change can complete.
      await this.tokens.voidUnused(tx, caller.userId, 'change');
      const { expiresAt } = await this.verification.issue(tx, { userId: caller.userId, purpose: 'change', email: newEmail, workspaceId: caller.workspaceId });
      return { newEmail, expiresAt };
    });
  }
}
