import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';
import type { EmailTokenPurpose, EmailTokenState } from '../domain/email-tokens.js';

export interface StoredEmailToken extends EmailTokenState {
  id: string;
  userId: string;
  /** The user's address now, read with the token under the user's row lock. */
  userEmail: string;
  userWorkspaceId: string;
}

interface TokenRow {
  id: string;
  user_id: string;
  purpose: EmailTokenPurpose;
  email: string;
  expires_at: Date;
  used_at: Date | null;
  user_email: string;
  user_workspace_id: string;
}

/** One-time tokens mailed to prove an address (`email_tokens`); only their hashes are stored. */
@Injectable()
export class EmailTokensRepository {
  async insert(tx: Tx, t: { id: string; userId: string; purpose: EmailTokenPurpose; tokenHash: string; email: string; expiresAt: Date }): Promise<void> {
    await tx.query('INSERT INTO email_tokens (id, user_id, purpose, token_hash, email, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      t.id,
      t.userId,
      t.purpose,
      t.tokenHash,
      t.email,
      t.expiresAt,
    ]);
  }

  /**
   * The token with this hash and its user's current address, both rows locked: two presentations
   * of one token, or two confirmations racing for one address, take turns.
   */
  async findForUpdate(tx: Tx, tokenHash: string): Promise<StoredEmailToken | null> {
    const rows: TokenRow[] = await tx.query(
      `SELECT t.id, t.user_id, t.purpose, t.email, t.expires_at, t.used_at, u.email AS user_email, u.workspace_id AS user_workspace_id
       FROM email_tokens t JOIN users u ON u.id = t.user_id
       WHERE t.token_hash = $1 AND u.status = 'active'
       FOR UPDATE OF t, u`,
      [tokenHash],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      id: r.id,
      userId: r.user_id,
      purpose: r.purpose,
      email: r.email,
      expiresAt: r.expires_at,
      usedAt: r.used_at,
      userEmail: r.user_email,
      userWorkspaceId: r.user_workspace_id,
    };
  }

  async markUsed(tx: Tx, id: string): Promise<void> {
    await tx.query('UPDATE email_tokens SET used_at = now() WHERE id = $1 AND used_at IS NULL', [id]);
  }

  /** Ends every unused token of the user (of one purpose, or all): a newer one replaces them, or the address they name is gone. */
  async voidUnused(tx: Tx, userId: string, purpose?: EmailTokenPurpose): Promise<void> {
    await tx.query('UPDATE email_tokens SET used_at = now() WHERE user_id = $1 AND used_at IS NULL AND ($2::text IS NULL OR purpose = $2)', [
      userId,
      purpose ?? null,
    ]);
  }

  /** When the user's tokens of this purpose were made since `since`: what the per-user mail limit counts. */
  async issuedSince(tx: Tx, userId: string, purpose: EmailTokenPurpose, since: Date): Promise<Date[]> {
    const rows: Array<{ created_at: Date }> = await tx.query(
      'SELECT created_at FROM email_tokens WHERE user_id = $1 AND purpose = $2 AND created_at > $3 ORDER BY created_at',
      [userId, purpose, since],
    );
    return rows.map((r) => r.created_at);
  }
}
