import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { AppError } from '../../../core/index.js';
import { SealedBox } from '../../../platform/crypto/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { RateLimiter, type AttemptBudget } from '../../../platform/rate-limit/index.js';
import { base32Decode, hashRecoveryCode, matchTotp } from '../domain/totp.js';
import { TwoFactorRepository, type TotpState } from '../infrastructure/two-factor.repository.js';

/** A second factor as a request carries it: a code from the app, or one of the recovery codes. */
export interface SecondFactorProof {
  code?: string;
  recoveryCode?: string;
}

/** Wrong codes (and wrong passwords on the disable route) allowed per user in 5 minutes; the 6th attempt is 429. */
export const MFA_ATTEMPTS: AttemptBudget = {
  name: 'mfa',
  limit: 5,
  windowSeconds: 300,
  message: 'Too many wrong two-factor codes for this account; wait a few minutes and try again.',
};

export const invalidMfaCode = () => new AppError('invalid_mfa_code', 'The two-factor code is not correct, has expired or was already used.');

/** Failures that spend an attempt: a guess that was wrong. Anything else (a used token, an outage) is refunded. */
function isWrongGuess(err: unknown): boolean {
  return err instanceof AppError && (err.code === 'invalid_mfa_code' || err.code === 'current_password_incorrect');
}

/**
 * Checking and spending second factors, for enabling, disabling and signing in alike: TOTP secrets
 * sealed at rest (bound to their user), codes single use (the step is recorded in the transaction
 * that accepts it, under the user's row lock), recovery codes single use, guesses limited per user.
 */
@Injectable()
export class SecondFactor {
  private readonly box: SealedBox;

  constructor(
    private readonly repo: TwoFactorRepository,
    private readonly limiter: RateLimiter,
    config: AppConfig,
  ) {
    this.box = new SealedBox(config.tokenEncryptionKey, 'totp-secrets');
  }

  seal(secret: string, userId: string): string {
    return this.box.seal(secret, userId);
  }

  /** The secret's bytes, for matching codes. */
  secretOf(state: TotpState): Buffer {
    if (!state.secretSealed) throw new Error('No TOTP secret to open.');
    return base32Decode(this.box.open(state.secretSealed, state.userId));
  }

  /**
   * Runs `guess` as one attempt of the user's budget (429 `rate_limited` once 5 have failed in the
   * window): reserved first, so parallel guesses cannot all pass; given back unless the guess was wrong.
   */
  async attempt<T>(userId: string, guess: () => Promise<T>): Promise<T> {
    const ticket = await this.limiter.reserveAttempt(MFA_ATTEMPTS, userId);
    try {
      const result = await guess();
      await ticket.refund();
      return result;
    } catch (err) {
      if (!isWrongGuess(err)) await ticket.refund();
      throw err;
    }
  }

  /**
   * Accepts `proof` for the user's TOTP in force and spends it in `tx`, or throws `invalid_mfa_code`.
   * `state` must have been read in `tx` with its row locked, so a code checked twice at once is
   * accepted once. A code is refused for its step or any earlier one once a step has been used.
   */
  async spend(tx: Tx, state: TotpState, proof: SecondFactorProof, nowMs: number = Date.now()): Promise<'code' | 'recovery_code'> {
    if (!state.enabledAt) throw invalidMfaCode();
    if (proof.recoveryCode !== undefined) {
      if (!(await this.repo.useRecoveryCode(tx, state.userId, hashRecoveryCode(proof.recoveryCode)))) throw invalidMfaCode();
      return 'recovery_code';
    }
    const step = proof.code === undefined ? null : matchTotp(this.secretOf(state), proof.code, nowMs, state.lastStep);
    if (step === null || !(await this.repo.advanceStep(tx, state.userId, step))) throw invalidMfaCode();
    return 'code';
  }
}
