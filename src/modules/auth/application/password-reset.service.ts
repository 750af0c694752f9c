import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, newId } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { Budgets, hashedKey, type Budget } from '../../../platform/rate-limit/index.js';
import { normalizeEmail } from '../domain/password-policy.js';
import { canReset, floorWaitMs, generateResetToken, hashResetToken, resetExpiry } from '../domain/password-reset.js';
import { AccountsRepository } from '../infrastructure/accounts.repository.js';
import { PasswordsRepository } from '../infrastructure/passwords.repository.js';
import { NewPassword } from './new-password.js';
import type { ClientInfo } from './sessions.service.js';

/**
 * The least time a forgot-password answer takes. Both paths already do the same kind of work (a
 * look-up, a token and its hash, a transaction); the floor hides what still differs (the rows a
 * known address writes), so no timing tells whether an account exists.
 */
export const FORGOT_ANSWER_FLOOR_MS = 250;

const HOUR = 3600;
const RESET_FAILURE_WINDOW = 15 * 60;

const invalidResetToken = () =>
  new AppError('invalid_reset_token', 'This password reset link is invalid, expired or already used; ask for a new one.');

/** Forgot password (a mailed link) and reset with its token. */
@Injectable()
export class PasswordResetService {
  private readonly forgotPerIp: Budget;
  private readonly forgotPerEmail: Budget;
  private readonly resetFailuresPerIp: Budget;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly passwords: PasswordsRepository,
    private readonly newPassword: NewPassword,
    private readonly budgets: Budgets,
    private readonly outbox: Outbox,
    private readonly config: AppConfig,
  ) {
    const s = config.passwords;
    const tooMany = 'Too many password reset requests; try again later.';
    this.forgotPerIp = { name: 'pw-forgot-ip', limit: s.forgotPerIpPerHour, windowSeconds: HOUR, message: tooMany };
    this.forgotPerEmail = { name: 'pw-forgot-email', limit: s.forgotPerEmailPerHour, windowSeconds: HOUR, message: tooMany };
    this.resetFailuresPerIp = {
      name: 'pw-reset-fail-ip',
      limit: s.resetFailuresPerIp,
      windowSeconds: RESET_FAILURE_WINDOW,
      message: 'Too many invalid password reset links from this address; try again later.',
    };
  }

  /**
   * Mails a reset link when the address belongs to an active account; answers the same, in the
   * same time, when it does not. Both budgets count every request, known address or not.
   */
  async forgot(emailInput: string, client: ClientInfo): Promise<void> {
    const startedAt = Date.now();
    const email = normalizeEmail(emailInput);
    await this.budgets.spend(this.forgotPerIp, client.ip ?? 'unknown');
    await this.budgets.spend(this.forgotPerEmail, hashedKey(email));
    try {
      await this.issue(email);
    } finally {
      await sleep(floorWaitMs(startedAt, Date.now(), FORGOT_ANSWER_FLOOR_MS));
    }
  }

  private async issue(email: string): Promise<void> {
    const found = await this.accounts.findCredentialsByEmail(email);
    const account = found?.status === 'active' ? found : null;
    const token = generateResetToken();
    const tokenHash = hashResetToken(token);
    await inTransaction(this.ds, async (tx) => {
      await this.passwords.dropResets(tx, account?.id ?? null);
      if (!account) return;
      await this.passwords.insertReset(tx, {
        id: newId('atk'),
        userId: account.id,
        tokenHash,
        expiresAt: resetExpiry(new Date(), this.config.passwords.resetTtlMinutes),
      });
      await this.outbox.record(tx, {
        type: 'account.password_reset_requested',
        workspaceId: account.workspaceId,
        payload: { userId: account.id, email: account.email },
        secret: token,
      });
    });
  }

  /**
   * Sets a new password with a mailed token: once, before it expires. Every session and refresh
   * token of the account ends, and its open sockets close. A bad token counts against the client
   * address's budget; a refused new password leaves the token usable.
   */
  async reset(token: string, password: string, client: ClientInfo): Promise<void> {
    const ip = client.ip ?? 'unknown';
    await this.budgets.assertOpen(this.resetFailuresPerIp, ip);
    const tokenHash = hashResetToken(token);
    const found = await this.passwords.findReset(tokenHash);
    if (!found || !canReset(found, new Date())) {
      await this.budgets.record(this.resetFailuresPerIp, ip);
      throw invalidResetToken();
    }
    const passwordHash = await this.newPassword.hashAcceptable(password, found.email);
    const ended = await inTransaction(this.ds, async (tx) => {
      // Read again under the lock: a concurrent reset with the same token has spent it.
      const locked = await this.passwords.lockReset(tx, tokenHash);
      if (!locked || !canReset(locked, new Date())) throw invalidResetToken();
      return this.newPassword.store(tx, {
        userId: locked.userId,
        email: locked.email,
        passwordHash,
        reason: 'password_reset',
        workspaceId: locked.homeWorkspaceId,
      });
    });
    await this.newPassword.afterCommit(ended);
  }
}
