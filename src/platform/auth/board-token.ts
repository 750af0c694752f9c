import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { Caller } from '../../core/index.js';

/** The passport strategy (modules/auth) that verifies board tokens and rechecks their session. */
export const BOARD_STRATEGY = 'queue-board-jwt';
/** The audience of a board token: only the queue board accepts it. */
export const BOARD_TOKEN_AUDIENCE = 'persona-studio-queue-board';

/**
 * A key of the board's own, derived from JWT_SECRET under a label: a board token never verifies
 * as an access token (nor an access token as a board token), so the cookie a browser holds for
 * the board cannot be replayed as the admin's bearer token anywhere else.
 */
export function boardTokenKey(jwtSecret: string): KeyObject {
  return createSecretKey(createHmac('sha256', jwtSecret).update('persona-studio/queue-board-token/v1').digest());
}

const base64url = (value: object): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/**
 * An HS256 token for the board only: the admin's user, session and workspace (the same claims an
 * access token carries, so the session is rechecked on every board request) for `ttlSeconds`.
 */
export function issueBoardToken(caller: Caller & { sessionId: string }, opts: { jwtSecret: string; issuer: string; ttlSeconds: number; nowSeconds: number }): string {
  const header = base64url({ alg: 'HS256', typ: 'JWT' });
  const payload = base64url({
    sub: caller.userId,
    sid: caller.sessionId,
    wid: caller.workspaceId,
    iss: opts.issuer,
    aud: BOARD_TOKEN_AUDIENCE,
    iat: opts.nowSeconds,
    exp: opts.nowSeconds + opts.ttlSeconds,
  });
  const signature = createHmac('sha256', boardTokenKey(opts.jwtSecret)).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}
