import { Injectable } from '@nestjs/common';
import type { Platform } from '../../../core/index.js';
import { changedRows, type Tx } from '../../../platform/database/index.js';
import { TokenCipher } from './token-cipher.js';

export interface OAuthState {
  id: string;
  workspaceId: string;
  userId: string;
  platform: Platform;
  redirectPath: string;
  codeVerifier: string | null;
}

interface StateRow {
  id: string;
  workspace_id: string;
  user_id: string;
  platform: Platform;
  redirect_path: string;
  code_verifier_enc: string | null;
}

/**
 * Connection flows in progress: one row per authorize URL handed out, usable once. A row is made
 * for its workspace (`insert`), but read back without one, by design: the platform's callback
 * brings only the opaque state, before any workspace is known, and the row is what says whose
 * flow it is. The state id is random and unguessable, so knowing it is the right to finish that flow.
 */
@Injectable()
export class OAuthStatesRepository {
  constructor(private readonly cipher: TokenCipher) {}

  async insert(tx: Tx, state: OAuthState, ttlSeconds: number): Promise<void> {
    await tx.query(
      `INSERT INTO oauth_states (id, workspace_id, user_id, platform, redirect_path, code_verifier_enc, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + ($7 || ' seconds')::interval)`,
      [state.id, state.workspaceId, state.userId, state.platform, state.redirectPath,
        state.codeVerifier ? this.cipher.encrypt(state.codeVerifier, state.id) : null, String(ttlSeconds)],
    );
  }

  /**
   * Marks the state used and answers it with its workspace; null when unknown, expired or already
   * used. Looked up by the state alone: see the class comment.
   */
  async consume(tx: Tx, id: string): Promise<OAuthState | null> {
    const rows = await changedRows<StateRow>(tx, `UPDATE oauth_states SET used_at = now() WHERE id = $1 AND used_at IS NULL AND expires_at > now()
       RETURNING id, workspace_id, user_id, platform, redirect_path, code_verifier_enc`,
      [id],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      id: r.id,
      workspaceId: r.workspace_id,
      userId: r.user_id,
      platform: r.platform,
      redirectPath: r.redirect_path,
      codeVerifier: r.code_verifier_enc ? this.cipher.decrypt(r.code_verifier_enc, r.id) : null,
    };
  }

  /** States a day past their expiry are of no use to anyone: the sweeper's housekeeping, across workspaces by design. */
  async purgeExpired(tx: Tx): Promise<number> {
    const rows = await changedRows<unknown>(tx, `DELETE FROM oauth_states WHERE expires_at < now() - interval '1 day' RETURNING id`);
    return rows.length;
  }
}
