import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, type Caller } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { AuditLog } from '../../audit/index.js';
import { generateRecoveryCodes, generateTotpSecret, hashRecoveryCode, matchTotp, otpauthUri } from '../domain/totp.js';
import { TwoFactorRepository, type TotpState } from '../infrastructure/two-factor.repository.js';
import { PasswordHasher } from './password-hasher.js';
import { invalidMfaCode, SecondFactor, type SecondFactorProof } from './second-factor.js';

/** The name authenticator apps show beside the account. */
export const TOTP_ISSUER = 'Persona Studio';

export interface TotpSetup {
  secret: string;
  otpauthUri: string;
}

export interface TwoFactorStatus {
  enabled: boolean;
  pending: boolean;
  recoveryCodesRemaining: number;
}

const alreadyEnabled = () => new AppError('mfa_already_enabled', 'Two-factor sign-in is already on; turn it off first to set up another authenticator.');

/** Turning two-factor sign-in (TOTP) on and off for the signed-in user. */
@Injectable()
export class TwoFactorService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: TwoFactorRepository,
    private readonly factors: SecondFactor,
    private readonly hasher: PasswordHasher,
    private readonly limiter: RateLimiter,
    private readonly audit: AuditLog,
  ) {}

  async status(caller: Caller): Promise<TwoFactorStatus> {
    const state = await this.stateOf(caller.userId);
    const recoveryCodesRemaining = state.enabledAt ? await this.repo.countUnusedRecoveryCodes(caller.userId) : 0;
    return { enabled: state.enabledAt !== null, pending: state.enabledAt === null && state.secretSealed !== null, recoveryCodesRemaining };
  }

  /** A new secret, pending until a code from it is confirmed; replaces a pending one; 409 once two-factor is on. */
  async setup(caller: Caller): Promise<TotpSetup> {
    const state = await this.stateOf(caller.userId);
    if (state.enabledAt) throw alreadyEnabled();
    const secret = generateTotpSecret();
    const stored = await inTransaction(this.ds, (tx) => this.repo.setPendingSecret(tx, caller.userId, this.factors.seal(secret, caller.userId)));
    if (!stored) throw alreadyEnabled();
    return { secret, otpauthUri: otpauthUri(TOTP_ISSUER, state.email, secret) };
  }

  /** Confirms the pending secret with a code from it and turns two-factor on; answers the ten recovery codes, shown this once. */
  async enable(caller: Caller, code: string): Promise<string[]> {
    const codes = await this.factors.attempt(caller.userId, () =>
      inTransaction(this.ds, async (tx) => {
        const state = await this.lockedState(tx, caller.userId);
        if (state.enabledAt) throw alreadyEnabled();
        if (!state.secretSealed) throw new AppError('mfa_setup_required', 'Start with POST /auth/mfa/totp/setup, add the secret to your authenticator app, then confirm a code here.');
        const step = matchTotp(this.factors.secretOf(state), code, Date.now(), null);
        if (step === null || !(await this.repo.enable(tx, caller.userId, step))) throw invalidMfaCode();
        const recovery = generateRecoveryCodes();
        await this.repo.replaceRecoveryCodes(tx, caller.userId, recovery.map(hashRecoveryCode));
        await this.record(tx, caller, 'auth.mfa_enabled', {});
        return recovery;
      }),
    );
    await this.bumpStamps(caller.userId);
    return codes;
  }

  /** Turns two-factor off, given the password and a current code or an unused recovery code. */
  async disable(caller: Caller, password: string, proof: SecondFactorProof): Promise<void> {
    const state = await this.stateOf(caller.userId);
    if (!state.enabledAt) throw new AppError('mfa_not_enabled', 'Two-factor sign-in is not on for this account.');
    await this.factors.attempt(caller.userId, async () => {
      if (!(await this.hasher.verify(state.passwordHash, password))) {
        throw new AppError('current_password_incorrect', 'The password is not correct.');
      }
      await inTransaction(this.ds, async (tx) => {
        const locked = await this.lockedState(tx, caller.userId);
        const used = await this.factors.spend(tx, locked, proof);
        await this.repo.disable(tx, caller.userId);
        await this.record(tx, caller, 'auth.mfa_disabled', { with: used });
      });
    });
    await this.bumpStamps(caller.userId);
  }

  private async stateOf(userId: string): Promise<TotpState> {
    const state = await this.repo.findTotp(userId);
    if (!state) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
    return state;
  }

  private async lockedState(tx: Tx, userId: string): Promise<TotpState> {
    const state = await this.repo.findTotp(userId, tx, true);
    if (!state) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
    return state;
  }

  private record(tx: Tx, caller: Caller, action: 'auth.mfa_enabled' | 'auth.mfa_disabled', details: Record<string, unknown>): Promise<void> {
    return this.audit.record(tx, { workspaceId: caller.workspaceId, actorUserId: caller.userId, action, targetType: 'user', targetId: caller.userId, details });
  }

  /**
   * Sessions remember whether their user meets a workspace's two-factor requirement; moving the
   * stamp of every workspace the user belongs to makes the next request of each read it afresh.
   */
  private async bumpStamps(userId: string): Promise<void> {
    for (const workspaceId of await this.repo.memberWorkspaceIds(userId)) await this.limiter.bumpAccessStamp(workspaceId);
  }
}
