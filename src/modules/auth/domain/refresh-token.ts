import { createHash, randomBytes } from 'node:crypto';

/** Refresh tokens are 32 random bytes; only their SHA-256 is stored, so a database leak yields no usable token. */
export function generateRefreshToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** What the store knows about a presented refresh token and its session (its token family). */
export interface RefreshTokenState {
  tokenExpiresAt: Date;
  rotatedAt: Date | null;
  sessionRevokedAt: Date | null;
  sessionExpiresAt: Date;
  userActive: boolean;
}

export type RefreshDecision = 'rotate' | 'reused' | 'invalid';

/**
 * A rotated token presented again means it was copied: the whole family is revoked (`reused`).
 * Unknown, expired or revoked tokens are simply `invalid`; anything else may rotate.
 */
export function decideRefresh(state: RefreshTokenState | null, now: Date): RefreshDecision {
  if (!state) return 'invalid';
  if (state.rotatedAt) return 'reused';
  if (state.sessionRevokedAt || !state.userActive) return 'invalid';
  if (state.tokenExpiresAt <= now || state.sessionExpiresAt <= now) return 'invalid';
  return 'rotate';
}
