import { createHash, randomBytes } from 'node:crypto';

/** What a mailed token proves: the user's current address (`verify`) or a new one (`change`). */
export type EmailTokenPurpose = 'verify' | 'change';

/** How long a mailed link works. */
export const EMAIL_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

/** Mails of one purpose a user may ask for in `EMAIL_REQUEST_WINDOW_MS` (the one sent at sign-up counts). */
export const EMAIL_REQUEST_LIMIT = 5;
export const EMAIL_REQUEST_WINDOW_MS = 60 * 60 * 1000;

/** A fresh one-time token (32 random bytes, base64url) and the hash that is all the database keeps. */
export function newEmailToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashEmailToken(token) };
}

export function hashEmailToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A stored token as the rules need it. */
export interface EmailTokenState {
  purpose: EmailTokenPurpose;
  /** The address it proves: the user's address when made (`verify`), or the new one (`change`). */
  email: string;
  expiresAt: Date;
  usedAt: Date | null;
}

/**
 * Whether a presented token may still act for a user whose address is now `currentEmail`: unused,
 * unexpired, and for `verify`, made for the address the user still has (a verification mailed to an
 * address the user has since left proves nothing about the new one).
 */
export function tokenUsable(token: EmailTokenState, currentEmail: string, now: Date): boolean {
  if (token.usedAt !== null) return false;
  if (token.expiresAt.getTime() <= now.getTime()) return false;
  if (token.purpose === 'verify' && token.email.toLowerCase() !== currentEmail.toLowerCase()) return false;
  return true;
}

/**
 * A sliding window over the times mails were requested: allowed while fewer than the limit fall in
 * the last window, else refused until the oldest of them leaves it (`retryAfterSeconds`, at least 1).
 */
export function requestAllowance(
  requestedAt: readonly Date[],
  now: Date,
  limit = EMAIL_REQUEST_LIMIT,
  windowMs = EMAIL_REQUEST_WINDOW_MS,
): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
  const since = now.getTime() - windowMs;
  const inWindow = requestedAt.map((d) => d.getTime()).filter((t) => t > since).sort((a, b) => a - b);
  if (inWindow.length < limit) return { allowed: true };
  const leavesAt = inWindow[inWindow.length - limit] + windowMs;
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((leavesAt - now.getTime()) / 1000)) };
}
