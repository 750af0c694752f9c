import { createHash, randomBytes } from 'node:crypto';

/**
 * Password reset tokens: 32 random bytes (base64url) mailed to the address, stored only as their
 * SHA-256, good for a limited time and once. The rules here are pure; the clock is the caller's.
 */
export function generateResetToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashResetToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** When a token issued at `issuedAt` stops working. */
export function resetExpiry(issuedAt: Date, ttlMinutes: number): Date {
  return new Date(issuedAt.getTime() + ttlMinutes * 60_000);
}

/** What the store knows of a presented token; null when no live token has that hash (unknown, spent or replaced). */
export interface StoredReset {
  expiresAt: Date;
  /** The account may still sign in (a disabled account cannot be taken back by mail). */
  userActive: boolean;
}

/** Whether a presented token may set a new password now. Unknown, spent, replaced and expired tokens are all refused alike. */
export function canReset(stored: StoredReset | null, now: Date): boolean {
  return stored !== null && stored.userActive && now.getTime() < stored.expiresAt.getTime();
}

/**
 * How long a forgot-password answer still waits so it is never sent before `floorMs` after its
 * start: a known and an unknown address then answer in the same time, whatever the database did.
 */
export function floorWaitMs(startedAtMs: number, nowMs: number, floorMs: number): number {
  return Math.max(0, startedAtMs + floorMs - nowMs);
}
