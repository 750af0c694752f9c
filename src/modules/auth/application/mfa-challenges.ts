import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { AppError, newId } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { generateRefreshToken, hashRefreshToken } from '../domain/refresh-token.js';
import { TwoFactorRepository } from '../infrastructure/two-factor.repository.js';

/** What a password sign-in answers for an account with two-factor on: no session yet, a token for the code step. */
export interface MfaChallenge {
  mfaRequired: true;
  mfaToken: string;
  expiresIn: number;
}

export const invalidMfaToken = () => new AppError('invalid_mfa_token', 'The sign-in token is invalid, expired or already used; sign in with your password again.');

/**
 * The step between a correct password and a second factor: a random token (32 bytes; only its
 * SHA-256 is stored), single use, short-lived (5 minutes by default, `MFA_TOKEN_TTL_SECONDS`).
 */
@Injectable()
export class MfaChallenges {
  constructor(
    private readonly repo: TwoFactorRepository,
    private readonly config: AppConfig,
  ) {}

  async issue(userId: string): Promise<MfaChallenge> {
    const token = generateRefreshToken();
    const ttl = this.config.mfaTokenTtlSeconds;
    await this.repo.insertChallenge({ id: newId('atk'), userId, tokenHash: hashRefreshToken(token), expiresAt: new Date(Date.now() + ttl * 1000) });
    return { mfaRequired: true, mfaToken: token, expiresIn: ttl };
  }

  /** The live challenge of `token`, or 401 `invalid_mfa_token` (unknown, expired and used alike). */
  async find(token: string): Promise<{ id: string; userId: string }> {
    const found = await this.repo.findLiveChallenge(hashRefreshToken(token));
    if (!found) throw invalidMfaToken();
    return found;
  }

  /** Spends the challenge in `tx`; a concurrent presentation that spent it first makes this one invalid. */
  async consume(tx: Tx, id: string): Promise<void> {
    if (!(await this.repo.consumeChallenge(tx, id))) throw invalidMfaToken();
  }
}
