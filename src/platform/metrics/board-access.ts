import type { Request } from 'express';
import { AppError, type Caller } from '../../core/index.js';
import { authenticateToken, BOARD_STRATEGY, bearerTokenOf, isApiKeyToken, SESSION_RECHECK_STRATEGY } from '../auth/index.js';
import { API_PREFIX } from '../http/edge.js';

/** Where the dashboard lives; its session route (a Nest route) sits under it. */
export const BOARD_PATH = `/${API_PREFIX}/admin/queues`;
/** The cookie a browser navigates the dashboard with: it cannot send a bearer header on navigation. */
export const BOARD_COOKIE = 'ps_board';
export const BOARD_COOKIE_SECONDS = 900;
/** The Nest route that sets the cookie; the dashboard's guard lets it through to Nest's own guard. */
export const BOARD_SESSION_SUBPATH = '/session';

/** Find a cookie's value in the Cookie header; cookie-parser is not worth a dependency for one name. */
export function cookieOf(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/**
 * The admin a request to the dashboard comes from: a session access token from the Authorization
 * header, or a board-only token from the board cookie (never an access token: see
 * `issueBoardToken`), each verified with its own key and the session read afresh (a revoked
 * session is refused), without counting against the rate limit the dashboard's polling would
 * otherwise eat.
 */
export async function boardAdmin(req: Request): Promise<Caller> {
  const bearer = bearerTokenOf(req);
  const token = bearer ?? cookieOf(req.headers.cookie, BOARD_COOKIE);
  if (token === null) throw new AppError('unauthorized', 'Sign in as an admin: send a bearer token or open the board through its session route.');
  if (isApiKeyToken(token)) throw new AppError('session_required', 'The queue board needs a session token, not an API key.');
  const found = await authenticateToken(bearer !== null ? SESSION_RECHECK_STRATEGY : BOARD_STRATEGY, token);
  if (!found) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
  if (found.caller.role !== 'admin') throw new AppError('forbidden', 'Your role does not allow this action.');
  return found.caller;
}

export function noBoard(): AppError {
  return new AppError('not_found', 'The job queue runs in process (no REDIS_URL is configured): there is no queue board.');
}
