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

/**
 * Whether to refresh before using the token: within five minutes of expiry, or within half its
 * life for tokens that live less than ten minutes (else a short-lived token, fresh from a refresh,
 * would be refreshed again on every use). The life is counted from the row's last change, when the
 * tokens were stored.
 */
export function needsRefresh(connection: Pick<Connection, 'expiresAt' | 'updatedAt'>, now: Date): boolean {
  if (connection.expiresAt === null) return false;
  const life = connection.expiresAt.getTime() - connection.updatedAt.getTime();
  const margin = Math.min(REFRESH_MARGIN_MS, Math.max(0, life / 2));
  return connection.expiresAt.getTime() - margin <= now.getTime();
}

/**
 * The status a client sees: a connected row whose token lapsed and cannot be refreshed shows as
 * `expired` (a refresh is still tried at publish time when a refresh token exists).
 */
export function visibleStatus(connection: Pick<Connection, 'status' | 'expiresAt' | 'refreshToken'>, now: Date): ConnectionStatus {
  if (connection.status === 'connected' && connection.expiresAt && connection.expiresAt <= now && !connection.refreshToken) return 'expired';
  return connection.status;
}

/**
 * The status a client sees for the platform as it runs now (`mode`): a connection made in the
 * other mode (sandbox, then credentials configured, or the other way) holds tokens this client
 * cannot use, so it shows as `needs_reauth`.
 */
export function statusFor(connection: Pick<Connection, 'status' | 'expiresAt' | 'refreshToken' | 'mode'> | null, mode: ConnectionMode, now: Date): ConnectionStatus {
  if (!connection) return 'disconnected';
  if (connection.status !== 'disconnected' && connection.mode !== mode) return 'needs_reauth';
  return visibleStatus(connection, now);
}

/**
 * Whether posts may be scheduled or published on the connection (contract §8): it shows as
 * `connected` for the platform's current mode and holds a token. A sandbox platform counts only
 * once its sandbox connection was made. A token near or past expiry still counts while a refresh
 * token can renew it when the post goes out.
 */
export function canPostWith(connection: Connection | null, mode: ConnectionMode, now: Date): boolean {
  return connection !== null && connection.accessToken !== null && statusFor(connection, mode, now) === 'connected';
}
