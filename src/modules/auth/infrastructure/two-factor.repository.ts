import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { newId } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';

/** A user's TOTP state: no secret, a pending one (set up, not enabled yet), or one in force. */
export interface TotpState {
  userId: string;
  email: string;
  passwordHash: string;
  secretSealed: string | null;
  enabledAt: Date | null;
  /** The newest step a code was accepted for; codes for it or earlier ones are refused. */
  lastStep: number | null;
}

interface TotpRow {
  id: string;
  email: string;
  password_hash: string;
  totp_secret_sealed: string | null;
  totp_enabled_at: Date | null;
  totp_last_step: string | null;
}

/** Affected-row count of an UPDATE or DELETE (the postgres driver answers `[rows, count]`). */
async function changed(tx: Tx, sql: string, params: unknown[]): Promise<number> {
  const [, count]: [unknown[], number] = await tx.query(sql, params);
  return count;
}

/** Two-factor state of users: their TOTP secret, recovery codes, and the tokens between password and code. Every method names the user. */
@Injectable()
export class TwoFactorRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The user's state; `lock` holds the row until the transaction ends, so two codes checked at once are checked one after the other. */
  async findTotp(userId: string, tx?: Tx, lock = false): Promise<TotpState | null> {
    const rows: TotpRow[] = await (tx ?? this.ds.manager).query(
      `SELECT id, email, password_hash, totp_secret_sealed, totp_enabled_at, totp_last_step FROM users WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [userId],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      userId: r.id,
      email: r.email,
      passwordHash: r.password_hash,
      secretSealed: r.totp_secret_sealed,
      enabledAt: r.totp_enabled_at,
      lastStep: r.totp_last_step === null ? null : Number(r.totp_last_step),
    };
  }

  /** Replaces a pending secret (or sets the first); false when two-factor is already in force. */
  async setPendingSecret(tx: Tx, userId: string, sealed: string): Promise<boolean> {
    return (
      (await changed(tx, 'UPDATE users SET totp_secret_sealed = $2, totp_last_step = NULL, updated_at = now() WHERE id = $1 AND totp_enabled_at IS NULL', [userId, sealed])) === 1
    );
  }

  /** Puts the pending secret in force; `step` (the code just used) may not be used again. */
  async enable(tx: Tx, userId: string, step: number): Promise<boolean> {
    return (
      (await changed(
        tx,
        'UPDATE users SET totp_enabled_at = now(), totp_last_step = $2, updated_at = now() WHERE id = $1 AND totp_enabled_at IS NULL AND totp_secret_sealed IS NOT NULL',
        [userId, step],
      )) === 1
    );
  }

  /** Records `step` as used; false when it (or a later one) already was: a replayed code. */
  async advanceStep(tx: Tx, userId: string, step: number): Promise<boolean> {
    return (
      (await changed(
        tx,
        'UPDATE users SET totp_last_step = $2 WHERE id = $1 AND totp_enabled_at IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < $2)',
        [userId, step],
      )) === 1
    );
  }

  /** Two-factor off: the secret, the recovery codes and any sign-in waiting for a code are gone. */
  async disable(tx: Tx, userId: string): Promise<void> {
    await tx.query('UPDATE users SET totp_secret_sealed = NULL, totp_enabled_at = NULL, totp_last_step = NULL, updated_at = now() WHERE id = $1', [userId]);
    await tx.query('DELETE FROM mfa_recovery_codes WHERE user_id = $1', [userId]);
    await tx.query('DELETE FROM mfa_challenges WHERE user_id = $1', [userId]);
  }

  async replaceRecoveryCodes(tx: Tx, userId: string, codeHashes: string[]): Promise<void> {
    await tx.query('DELETE FROM mfa_recovery_codes WHERE user_id = $1', [userId]);
    for (const hash of codeHashes) {
      await tx.query('INSERT INTO mfa_recovery_codes (id, user_id, code_hash) VALUES ($1, $2, $3)', [newId('rcv'), userId, hash]);
    }
  }

  /** Spends the recovery code with this hash; false when the user has no such unused code. */
  async useRecoveryCode(tx: Tx, userId: string, codeHash: string): Promise<boolean> {
    return (await changed(tx, 'UPDATE mfa_recovery_codes SET used_at = now() WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL', [userId, codeHash])) === 1;
  }

  async countUnusedRecoveryCodes(userId: string): Promise<number> {
    const rows: Array<{ n: number }> = await this.ds.query('SELECT count(*)::int AS n FROM mfa_recovery_codes WHERE user_id = $1 AND used_at IS NULL', [userId]);
    return rows[0].n;
  }

  async insertChallenge(c: { id: string; userId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
    // A user's spent and expired challenges go with each new one: the table holds only live ones and a few stragglers.
    await this.ds.query('DELETE FROM mfa_challenges WHERE user_id = $1 AND (used_at IS NOT NULL OR expires_at <= now())', [c.userId]);
    await this.ds.query('INSERT INTO mfa_challenges (id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)', [c.id, c.userId, c.tokenHash, c.expiresAt]);
  }

  /** A challenge that is neither used nor expired. */
  async findLiveChallenge(tokenHash: string): Promise<{ id: string; userId: string } | null> {
    const rows: Array<{ id: string; user_id: string }> = await this.ds.query(
      'SELECT id, user_id FROM mfa_challenges WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()',
      [tokenHash],
    );
    return rows[0] ? { id: rows[0].id, userId: rows[0].user_id } : null;
  }

  /** Single use: only one of two concurrent presentations consumes it. */
  async consumeChallenge(tx: Tx, id: string): Promise<boolean> {
    return (await changed(tx, 'UPDATE mfa_challenges SET used_at = now() WHERE id = $1 AND used_at IS NULL AND expires_at > now()', [id])) === 1;
  }

  /** Every workspace the user is a member of: whose access stamps move when their two-factor state changes. */
  async memberWorkspaceIds(userId: string): Promise<string[]> {
    const rows: Array<{ workspace_id: string }> = await this.ds.query('SELECT workspace_id FROM memberships WHERE user_id = $1', [userId]);
    return rows.map((r) => r.workspace_id);
  }
}
