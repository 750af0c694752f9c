import type { Caller } from '../../core/index.js';

/** A caller, and its request already counted against the workspace's rate-limit window. */
export interface Authenticated {
  caller: Caller;
  /** Requests in the workspace's current window, this one included. */
  hits: number;
}

/**
 * Resolves a session access token to its caller, or null when invalid, expired or ended. It counts
 * the request against the workspace's window itself: that round trip also tells it whether what it
 * read for the session before may be reused.
 */
export abstract class SessionAuthenticator {
  abstract authenticate(token: string): Promise<Authenticated | null>;
  /**
   * The token's caller with its session read afresh, or null; counts no request. For credentials
   * held open (sockets), checked again when their workspace's access stamp moves and periodically.
   */
  abstract recheck(token: string): Promise<Caller | null>;
}

/** Resolves an API key secret to its caller, or null when unknown, expired or revoked. */
export abstract class ApiKeyAuthenticator {
  abstract authenticate(key: string): Promise<Caller | null>;
}

export { API_KEY_PREFIX } from '../../core/index.js';
