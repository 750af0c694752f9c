import type { Caller } from '../../core/index.js';
import { API_KEY_PREFIX } from '../../core/index.js';

/*
 * The passport strategies the global guard and the socket gateway authenticate with. They live in
 * the modules that own sessions and API keys (platform must not import them) and register under
 * these names; a strategy answers `Authenticated`, or fails for a token it does not accept.
 */

/** Session access tokens through passport-jwt, then the session check (modules/auth). */
export const SESSION_STRATEGY = 'session-jwt';
/** The same token check, then the session read afresh and nothing counted: for sockets held open. */
export const SESSION_RECHECK_STRATEGY = 'session-jwt-recheck';
/** `psk_` API keys looked up by hash (modules/api-keys), the request counted as a session's is. */
export const API_KEY_STRATEGY = 'api-key';
/** The same key read afresh and nothing counted: for sockets held open. */
export const API_KEY_RECHECK_STRATEGY = 'api-key-recheck';

/** What a strategy answers for an accepted credential. */
export interface Authenticated {
  caller: Caller;
  /**
   * Requests in the workspace's current window, this one included, when the strategy counted the
   * request itself: the session and API key checks do, because the round trip that counts also reads
   * the workspace's access stamp they need before they can trust what they remember. Absent, the rate-limit
   * step counts the request.
   */
  hits?: number;
}

/**
 * What a strategy is handed to authenticate: the Authorization header and nothing else, for HTTP
 * requests and socket tokens alike. Passport decorates the request it is given with session-login
 * helpers (`logIn`, `isAuthenticated`, ...) that nothing here uses; on Express's request, adding
 * them cost a tenth of an authenticated request's throughput, as V8 reshapes that large object.
 */
export interface CredentialRequest {
  headers: { authorization?: string };
  /**
   * A loopback request this process sent for one it already counted (`CountedCalls`: an MCP tool's
   * route): the check must not count it again.
   */
  counted?: boolean;
}

export function credentialRequest(authorization: string | undefined, counted = false): CredentialRequest {
  return counted ? { headers: { authorization }, counted } : { headers: { authorization } };
}

const BEARER = /^Bearer\s+(\S+)$/i;

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerTokenOf(req: CredentialRequest): string | null {
  return BEARER.exec(req.headers.authorization ?? '')?.[1] ?? null;
}

export function isApiKeyToken(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/** The bearer token when it is not an API key: what the session strategy verifies. */
export function sessionTokenOf(req: CredentialRequest): string | null {
  const token = bearerTokenOf(req);
  return token !== null && !isApiKeyToken(token) ? token : null;
}

/** The bearer token when it is an API key: what the API key strategy looks up. */
export function apiKeyOf(req: CredentialRequest): string | null {
  const token = bearerTokenOf(req);
  return token !== null && isApiKeyToken(token) ? token : null;
}
