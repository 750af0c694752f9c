import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../../../platform/database/index.js';
import type { StoredReset } from '../domain/password-reset.js';

/** A presented reset token's row, locked for the transaction that spends it. */
export interface LockedReset extends StoredReset {
  userId: string;
  email: string;
  homeWorkspaceId: string;
}

/** Password hashes on users, and the `password_resets` tokens (by hash only). */
@Injectable()
export class PasswordsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async findPasswordHash(userId: string): Promise<{ email: string; passwordHash: string } | null> {
    const rows: Array<{ email: string; password_hash: string }> = await this.ds.query(
      "SELECT email, password_hash FROM users WHERE id = $1 AND status = 'active'",
      [userId],
    );
    return rows[0] ? { email: rows[0].email, passwordHash: rows[0].password_hash } : null;
  }

  async setPasswordHash(tx: Tx, userId: string, passwordHash: string): Promise<void> {
    await tx.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [userId, passwordHash]);
  }

  /**
   * Drops the user's earlier reset tokens (a new request replaces them). With no such user
   * (`userId` null) it runs the same statement and touches nothing: the forgot-password paths of a
   * known and an unknown address do the same kind of work.
   */
  async dropResets(tx: Tx, userId: string | null): Promise<void> {
    await tx.query('DELETE FROM password_resets WHERE user_id = $1', [userId ?? '']);
  }

  async insertReset(tx: Tx, r: { id: string; userId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
    await tx.query('INSERT INTO password_resets (id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)', [
      r.id,
      r.userId,
      r.tokenHash,
      r.expiresAt,
    ]);
  }

  /** The live token with this hash and its account, read without a lock (to check the new password first). */
  async findReset(tokenHash: string, tx?: Tx): Promise<LockedReset | null> {
    return this.readReset(tx ?? this.ds.manager, tokenHash, '');
  }

  /** The same, with the token row locked until the transaction ends: two resets with one token cannot both pass. */
  async lockReset(tx: Tx, tokenHash: string): Promise<LockedReset | null> {
    return this.readReset(tx, tokenHash, 'FOR UPDATE OF r');
  }

  private async readReset(q: Tx, tokenHash: string, lock: string): Promise<LockedReset | null> {
    const rows: Array<{ user_id: string; email: string; workspace_id: string; expires_at: Date; user_active: boolean }> = await q.query(
      `SELECT r.user_id, u.email, u.workspace_id, r.expires_at, u.status = 'active' AS user_active
       FROM password_resets r JOIN users u ON u.id = r.user_id
       WHERE r.token_hash = $1 ${lock}`,
      [tokenHash],
    );
    const r = rows[0];
    return r ? { userId: r.user_id, email: r.email, homeWorkspaceId: r.workspace_id, expiresAt: r.expires_at, userActive: r.user_active } : null;
  }
}
