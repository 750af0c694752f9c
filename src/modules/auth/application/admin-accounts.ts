import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { newId } from '../../../core/index.js';
import { inTransaction, isUniqueViolation } from '../../../platform/database/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { normalizeEmail, passwordProblem } from '../domain/password-policy.js';
import { AccountsRepository } from '../infrastructure/accounts.repository.js';
import { PasswordHasher } from './password-hasher.js';
import { PasswordRules } from './password-rules.js';

export type AdminOutcome = 'created' | 'promoted' | 'unchanged';

/**
 * What to do with a guessable admin password: production refuses it; development and tests take it
 * with a warning (`weakPassword`), so local set-ups with a throwaway password keep working.
 */
export interface AdminPasswordPolicy {
  refuseGuessable: boolean;
}

export interface AdminResult {
  outcome: AdminOutcome;
  /** Why the password that was set is guessable, when it was taken anyway. */
  weakPassword: string | null;
}

/**
 * Makes the operator's admin account: from ADMIN_EMAIL/ADMIN_PASSWORD at start-up or from the CLI.
 * Nobody becomes admin through the API. Built without Nest too, so the CLI can use it on a bare DataSource.
 */
@Injectable()
export class AdminAccounts {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly hasher: PasswordHasher,
    private readonly rules: PasswordRules,
    /** Absent in the CLI, which has no counters to reach: a running API sees its promotion within CREDENTIAL_RECHECK_MS. */
    private readonly limiter?: RateLimiter,
  ) {}

  static standalone(ds: DataSource): AdminAccounts {
    return new AdminAccounts(ds, new AccountsRepository(ds), new PasswordHasher(), PasswordRules.standalone());
  }

  /**
   * Creates the admin with a workspace of its own on the agency plan, or promotes the existing user
   * (password kept, so only a password about to be set is judged).
   */
  async ensureAdmin(emailInput: string, password: string, policy: AdminPasswordPolicy): Promise<AdminResult> {
    const tooShortOrLong = passwordProblem(password);
    if (tooShortOrLong) throw new Error(tooShortOrLong);
    const email = normalizeEmail(emailInput);
    const existing = await this.promote(email);
    if (existing) return { outcome: existing, weakPassword: null };
    const guessable = await this.rules.guessable(password, email);
    if (guessable && policy.refuseGuessable) throw new Error(`The admin password is refused: ${guessable}.`);
    return { outcome: await this.create(email, password), weakPassword: guessable };
  }

  private async create(email: string, password: string): Promise<AdminOutcome> {
    const passwordHash = await this.hasher.hash(password);
    try {
      await inTransaction(this.ds, async (tx) => {
        const workspaceId = newId('ws');
        await this.accounts.insertWorkspace(tx, { id: workspaceId, name: 'Administration', plan: 'agency' });
        await this.accounts.insertUser(tx, { id: newId('user'), workspaceId, email, passwordHash, displayName: 'Admin', role: 'admin', emailVerified: true });
      });
      return 'created';
    } catch (err) {
      // Another instance starting at the same moment made it first.
      if (isUniqueViolation(err, 'users_email_lower_uq')) return (await this.promote(email)) ?? 'unchanged';
      throw err;
    }
  }

  private async promote(email: string): Promise<AdminOutcome | null> {
    const user = await this.accounts.findCredentialsByEmail(email);
    if (!user) return null;
    if (user.role === 'admin') return 'unchanged';
    // The operator names this address in ADMIN_EMAIL: that is its proof.
    await inTransaction(this.ds, async (tx) => {
      await this.accounts.setRole(tx, user.id, 'admin');
      await this.accounts.markEmailVerified(tx, user.id);
    });
    await this.limiter?.bumpAccessStamp(user.workspaceId);
    return 'promoted';
  }
}
