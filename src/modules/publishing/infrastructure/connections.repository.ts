import { Injectable } from '@nestjs/common';
import type { Platform } from '../../../core/index.js';
import { changedRows, type Tx } from '../../../platform/database/index.js';
import type { Connection, ConnectionMode, ConnectionStatus } from '../domain/connection.js';
import { TokenCipher } from './token-cipher.js';

interface ConnectionRow {
  id: string;
  workspace_id: string;
  platform: Platform;
  mode: ConnectionMode;
  status: ConnectionStatus;
  account_id: string | null;
  account_name: string | null;
  access_token_enc: string | null;
  refresh_token_enc: string | null;
  expires_at: Date | null;
  scopes: string[];
  default_board_id: string | null;
  connected_at: Date | null;
  updated_at: Date;
}

const COLUMNS = 'id, workspace_id, platform, mode, status, account_id, account_name, access_token_enc, refresh_token_enc, expires_at, scopes, default_board_id, connected_at, updated_at';

/** What a successful authorization or refresh stores. */
export interface TokenGrant {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  scopes: string[];
}

/**
 * One workspace's platform connections: every method takes the workspace id (an upsert reads it
 * from the connection it stores). Tokens are sealed on the way in and opened on the way out.
 */
@Injectable()
export class ConnectionsRepository {
  constructor(private readonly cipher: TokenCipher) {}

  async find(tx: Tx, workspaceId: string, platform: Platform): Promise<Connection | null> {
    const rows: ConnectionRow[] = await tx.query(`SELECT ${COLUMNS} FROM platform_connections WHERE workspace_id = $1 AND platform = $2`, [workspaceId, platform]);
    return rows[0] ? this.toConnection(rows[0]) : null;
  }

  /**
   * Connected accounts, of one workspace or (null: the analytics scheduler's scan) of every one.
   * Tokens are not opened: a list needs none.
   */
  async connectedAccounts(tx: Tx, workspaceId: string | null): Promise<Array<{ workspaceId: string; platform: Platform; accountId: string }>> {
    const rows: Array<{ workspace_id: string; platform: Platform; account_id: string }> = await tx.query(
      `SELECT workspace_id, platform, account_id FROM platform_connections
        WHERE status = 'connected' AND account_id IS NOT NULL AND ($1::text IS NULL OR workspace_id = $1) ORDER BY workspace_id, platform`,
      [workspaceId],
    );
    return rows.map((r) => ({ workspaceId: r.workspace_id, platform: r.platform, accountId: r.account_id }));
  }

  /**
   * The workspaces whose connection to `platform` is the platform account `accountId` (several
   * may connect the same account), for a webhook that names only the account. A connection that
   * needs to be made again still counts: what arrives is kept, replies wait for the new tokens.
   */
  async byAccount(tx: Tx, platform: Platform, accountId: string): Promise<Array<{ workspaceId: string; platform: Platform; accountId: string }>> {
    const rows: Array<{ workspace_id: string }> = await tx.query(
      `SELECT workspace_id FROM platform_connections WHERE platform = $1 AND account_id = $2 AND status <> 'disconnected' ORDER BY workspace_id`,
      [platform, accountId],
    );
    return rows.map((r) => ({ workspaceId: r.workspace_id, platform, accountId }));
  }

  /** Creates or replaces the workspace's connection to the platform with fresh tokens. */
  async upsertConnected(tx: Tx, c: { id: string; workspaceId: string; platform: Platform; mode: ConnectionMode; accountId: string; accountName: string } & TokenGrant): Promise<Connection> {
    const rows: ConnectionRow[] = await tx.query(
      `INSERT INTO platform_connections (id, workspace_id, platform, mode, status, account_id, account_name, scopes, connected_at)
       VALUES ($1, $2, $3, $4, 'connected', $5, $6, $7, now())
       ON CONFLICT (workspace_id, platform) DO UPDATE SET mode = EXCLUDED.mode, status = 'connected',
         account_id = EXCLUDED.account_id, account_name = EXCLUDED.account_name, scopes = EXCLUDED.scopes,
         default_board_id = CASE WHEN platform_connections.account_id = EXCLUDED.account_id THEN platform_connections.default_board_id END,
         refresh_lease_until = NULL, connected_at = now(), updated_at = now()
       RETURNING id`,
      [c.id, c.workspaceId, c.platform, c.mode, c.accountId, c.accountName, JSON.stringify(c.scopes)],
    );
    // A new connection's tokens replace the old ones outright, the refresh token included.
    await tx.query(`UPDATE platform_connections SET refresh_token_enc = NULL WHERE id = $1 AND workspace_id = $2`, [rows[0].id, c.workspaceId]);
    await this.storeTokens(tx, c.workspaceId, rows[0].id, c);
    return (await this.find(tx, c.workspaceId, c.platform))!;
  }

  /** Stores refreshed tokens; a missing refresh token never replaces the stored one. */
  async storeTokens(tx: Tx, workspaceId: string, id: string, grant: TokenGrant): Promise<void> {
    await tx.query(
      `UPDATE platform_connections SET access_token_enc = $2, refresh_token_enc = COALESCE($3, refresh_token_enc),
         expires_at = $4, scopes = CASE WHEN jsonb_array_length($5::jsonb) > 0 THEN $5::jsonb ELSE scopes END,
         status = 'connected', refresh_lease_until = NULL, updated_at = now()
       WHERE id = $1 AND workspace_id = $6`,
      [id, this.cipher.encrypt(grant.accessToken, id), grant.refreshToken ? this.cipher.encrypt(grant.refreshToken, id) : null, grant.expiresAt, JSON.stringify(grant.scopes), workspaceId],
    );
  }

  async setStatus(tx: Tx, workspaceId: string, id: string, status: ConnectionStatus): Promise<void> {
    await tx.query(`UPDATE platform_connections SET status = $3, refresh_lease_until = NULL, updated_at = now() WHERE id = $1 AND workspace_id = $2`, [id, workspaceId, status]);
  }

  /**
   * `needs_reauth`, unless the row changed since `observed` (another process stored fresh tokens
   * meanwhile); answers whether it was marked.
   */
  async markNeedsReauthIfUnchanged(tx: Tx, workspaceId: string, id: string, observed: Date): Promise<boolean> {
    const rows = await changedRows<unknown>(tx,
      `UPDATE platform_connections SET status = 'needs_reauth', refresh_lease_until = NULL, updated_at = now()
       WHERE id = $1 AND workspace_id = $2 AND updated_at < $3::timestamptz + interval '1 millisecond' RETURNING id`,
      [id, workspaceId, observed],
    );
    return rows.length > 0;
  }

  /** Forgets the tokens: the row stays as `disconnected` so the history keeps its account. */
  async disconnect(tx: Tx, workspaceId: string, id: string): Promise<void> {
    await tx.query(
      `UPDATE platform_connections SET status = 'disconnected', access_token_enc = NULL, refresh_token_enc = NULL,
         expires_at = NULL, default_board_id = NULL, refresh_lease_until = NULL, updated_at = now() WHERE id = $1 AND workspace_id = $2`,
      [id, workspaceId],
    );
  }

  async setDefaultBoard(tx: Tx, workspaceId: string, id: string, boardId: string): Promise<void> {
    await tx.query(`UPDATE platform_connections SET default_board_id = $3, updated_at = now() WHERE id = $1 AND workspace_id = $2`, [id, workspaceId, boardId]);
  }

  /**
   * Takes the right to refresh for `leaseMs`; false when another process holds it, or already
   * stored new tokens since the row was read as `observed` (the caller reads it again).
   */
  async takeRefreshLease(tx: Tx, workspaceId: string, id: string, leaseMs: number, observed: Date): Promise<boolean> {
    const rows = await changedRows<unknown>(tx, `UPDATE platform_connections SET refresh_lease_until = now() + ($3 || ' milliseconds')::interval
       WHERE id = $1 AND workspace_id = $2 AND (refresh_lease_until IS NULL OR refresh_lease_until < now())
         AND updated_at < $4::timestamptz + interval '1 millisecond' RETURNING id`,
      [id, workspaceId, String(leaseMs), observed],
    );
    return rows.length > 0;
  }

  async releaseRefreshLease(tx: Tx, workspaceId: string, id: string): Promise<void> {
    await tx.query(`UPDATE platform_connections SET refresh_lease_until = NULL WHERE id = $1 AND workspace_id = $2`, [id, workspaceId]);
  }

  private toConnection(r: ConnectionRow): Connection {
    const tokens = this.open(r);
    return {
      id: r.id,
      workspaceId: r.workspace_id,
      platform: r.platform,
      mode: r.mode,
      status: tokens ? r.status : 'needs_reauth',
      accountId: r.account_id,
      accountName: r.account_name,
      accessToken: tokens?.access ?? null,
      refreshToken: tokens?.refresh ?? null,
      expiresAt: r.expires_at ? new Date(r.expires_at) : null,
      scopes: r.scopes ?? [],
      defaultBoardId: r.default_board_id,
      connectedAt: r.connected_at ? new Date(r.connected_at) : null,
      updatedAt: new Date(r.updated_at),
    };
  }

  /** The row's tokens in the clear; null when they cannot be opened (TOKEN_ENCRYPTION_KEY changed): connect again. */
  private open(r: ConnectionRow): { access: string | null; refresh: string | null } | null {
    try {
      return {
        access: r.access_token_enc ? this.cipher.decrypt(r.access_token_enc, r.id) : null,
        refresh: r.refresh_token_enc ? this.cipher.decrypt(r.refresh_token_enc, r.id) : null,
      };
    } catch {
      return null;
    }
  }
}
