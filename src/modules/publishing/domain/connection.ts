import type { Platform } from '../../../core/index.js';

export const CONNECTION_STATUSES = ['connected', 'expired', 'needs_reauth', 'disconnected'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];
export type ConnectionMode = 'live' | 'sandbox';

/** A workspace's connection to one platform, tokens in the clear (the repository seals them at rest). */
export interface Connection {
  id: string;
  workspaceId: string;
  platform: Platform;
  mode: ConnectionMode;
  status: ConnectionStatus;
  accountId: string | null;
  accountName: string | null;
  accessToken: string | null;
  refreshToken: string | null;
  expiresAt: Date | null;
  scopes: string[];
  defaultBoardId: string | null;
  connectedAt: Date | null;
  updatedAt: Date;
}

/** A connection whose access token can be sent. */
export type UsableConnection = Connection & { accessToken: string };

/** Refresh this long before expiry, so a post never goes out with a token about to lapse. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

export function needsRefresh(connection: Pick<Connection, 'expiresAt'>, now: Date): boolean {
  return connection.expiresAt !== null && connection.expiresAt.getTime() - REFRESH_MARGIN_MS <= now.getTime();
}

/**
 * The status a client sees: a connected row whose token lapsed and cannot be refreshed shows as
 * `expired` (a refresh is still tried at publish time when a refresh token exists).
 */
export function visibleStatus(connection: Pick<Connection, 'status' | 'expiresAt' | 'refreshToken'>, now: Date): ConnectionStatus {
  if (connection.status === 'connected' && connection.expiresAt && connection.expiresAt <= now && !connection.refreshToken) return 'expired';
  return connection.status;
}
