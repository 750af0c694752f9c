import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId, type Caller } from '../../../core/index.js';
import { inTransaction, isUniqueViolation, type Tx } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { EMAIL_REQUEST_LIMIT, EMAIL_REQUEST_WINDOW_MS, EMAIL_TOKEN_TTL_MS, hashEmailToken, newEmailToken, requestAllowance, tokenUsable, type EmailTokenPurpose } from '../domain/email-tokens.js';
import { AccountsRepository } from '../infrastructure/accounts.repository.js';
import { EmailTokensRepository, type StoredEmailToken } from '../infrastructure/email-tokens.repository.js';

/** What presenting a token did. */
export interface EmailConfirmed {
  purpose: EmailTokenPurpose;
  /** The user's (now verified) address. */
  email: string;
}

/** Unknown, expired, used, or made for an address the user has left: one answer for all, so nothing is learnt by guessing. */
const invalidToken = () => new AppError('invalid_verification_token', 'This link is invalid or has expired. Ask for a new one from your account settings.');

export const emailTaken = () => new AppError('email_taken', 'An account with this email already exists.');

/**
 * Proving an address: the verification mailed at sign-up and on request, and the one route every
 * mailed token is presented to (`POST /auth/verify-email`), which verifies the current address or
 * completes an email change, as the token's purpose says.
 */
@Injectable()
export class EmailVerificationService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly tokens: EmailTokensRepository,
    private readonly outbox: Outbox,
    private readonly limiter: RateLimiter,
  ) {}

  /** Called inside the registration's transaction: the mail goes out only if the account commits. */
  async recordOnRegistration(tx: Tx, user: { id: string; email: string }, workspaceId: string): Promise<void> {
    await this.issue(tx, { userId: user.id, purpose: 'verify', email: user.email, workspaceId });
  }

  /** Sends the verification again: 409 once verified, 429 past the per-user limit. */
  async requestVerification(caller: Caller): Promise<{ expiresAt: Date }> {
    return inTransaction(this.ds, async (tx) => {
      const user = await this.accounts.lockUser(tx, caller.userId);
      if (!user) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
      if (user.emailVerifiedAt) throw new AppError('email_already_verified', 'Your email address is already verified.');
      await this.assertAllowance(tx, caller.userId, 'verify');
      return this.issue(tx, { userId: user.id, purpose: 'verify', email: user.email, workspaceId: caller.workspaceId });
    });
  }

  /**
   * Records a token of `purpose` for `email` and the event that mails it; the caller holds the
   * user's row lock. The token itself travels only sealed in the event.
   */
  async issue(tx: Tx, t: { userId: string; purpose: EmailTokenPurpose; email: string; workspaceId: string }): Promise<{ expiresAt: Date }> {
    const { token, hash } = newEmailToken();
    const expiresAt = new Date(Date.now() + EMAIL_TOKEN_TTL_MS);
    await this.tokens.insert(tx, { id: newId('atk'), userId: t.userId, purpose: t.purpose, tokenHash: hash, email: t.email, expiresAt });
    if (t.purpose === 'verify') {
      await this.outbox.record(tx, { type: 'account.email_verification_requested', workspaceId: t.workspaceId, payload: { userId: t.userId, email: t.email }, secret: token });
    } else {
      await this.outbox.record(tx, { type: 'account.email_change_requested', workspaceId: t.workspaceId, payload: { userId: t.userId, newEmail: t.email }, secret: token });
    }
    return { expiresAt };
  }

  /** 429 with `retry_after` once the user asked for this mail too often in the window. */
  async assertAllowance(tx: Tx, userId: string, purpose: EmailTokenPurpose): Promise<void> {
    const now = new Date();
    const recent = await this.tokens.issuedSince(tx, userId, purpose, new Date(now.getTime() - EMAIL_REQUEST_WINDOW_MS));
    const allowance = requestAllowance(recent, now);
    if (!allowance.allowed) {
      throw new AppError('rate_limited', 'Too many emails asked for in the last hour; try again later.', {
        limit: EMAIL_REQUEST_LIMIT,
        retry_after: allowance.retryAfterSeconds,
      });
    }
  }

  /** Presents a mailed token: verifies the current address, or moves the account to the new one. */
  async confirm(token: string): Promise<EmailConfirmed> {
    let confirmed: EmailConfirmed & { userId: string };
    try {
      confirmed = await inTransaction(this.ds, async (tx) => {
        const stored = await this.tokens.findForUpdate(tx, hashEmailToken(token));
        if (!stored || !tokenUsable(stored, stored.userEmail, new Date())) throw invalidToken();
        await this.tokens.markUsed(tx, stored.id);
        const done = stored.purpose === 'verify' ? await this.verifyCurrent(tx, stored) : await this.changeTo(tx, stored);
        return { ...done, userId: stored.userId };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'users_email_lower_uq')) throw emailTaken();
      throw err;
    }
    // Sessions remember their caller as unverified: every workspace the user acts in checks again.
    const memberships = await this.accounts.listMemberships(confirmed.userId);
    await Promise.all(memberships.map((m) => this.limiter.bumpAccessStamp(m.workspace.id)));
    return { purpose: confirmed.purpose, email: confirmed.email };
  }

  private async verifyCurrent(tx: Tx, stored: StoredEmailToken): Promise<EmailConfirmed> {
    await this.accounts.markEmailVerified(tx, stored.userId);
    // Other links mailed for this address have done their work.
    await this.tokens.voidUnused(tx, stored.userId, 'verify');
    return { purpose: 'verify', email: stored.userEmail };
  }

  /** The new address must still be free; the old one is told of the change. */
  private async changeTo(tx: Tx, stored: StoredEmailToken): Promise<EmailConfirmed> {
    const holder = await this.accounts.findCredentialsByEmail(stored.email, tx);
    if (holder && holder.id !== stored.userId) throw emailTaken();
    await this.accounts.changeEmail(tx, stored.userId, stored.email);
    // Links mailed to the old address, or for another pending change, no longer apply.
    await this.tokens.voidUnused(tx, stored.userId);
    await this.outbox.record(tx, {
      type: 'account.email_changed',
      workspaceId: stored.userWorkspaceId,
      payload: { userId: stored.userId, oldEmail: stored.userEmail, newEmail: stored.email },
    });
    return { purpose: 'change', email: stored.email };
  }
}
