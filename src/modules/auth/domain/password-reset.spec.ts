import { describe, expect, it } from '@jest/globals';
import { canReset, floorWaitMs, generateResetToken, hashResetToken, resetExpiry } from './password-reset.js';

describe('password reset tokens', () => {
  it('are 32 random bytes in base64url, never the same twice', () => {
    const tokens = new Set(Array.from({ length: 100 }, generateResetToken));
    expect(tokens.size).toBe(100);
    for (const t of tokens) {
      expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(t, 'base64url')).toHaveLength(32);
    }
  });

  it('are stored as their SHA-256 hex, which does not contain the token', () => {
    const token = generateResetToken();
    const hash = hashResetToken(token);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(hashResetToken(token));
    expect(hash).not.toBe(hashResetToken(`${token}x`));
    expect(hash).not.toContain(token);
  });

  it('expire ttl minutes after issue', () => {
    expect(resetExpiry(new Date('2024-01-01T10:00:00Z'), 30).toISOString()).toBe('2024-01-01T10:30:00.000Z');
    expect(resetExpiry(new Date('2024-01-01T10:00:00Z'), 0.5).toISOString()).toBe('2024-01-01T10:00:30.000Z');
  });
});

describe('canReset', () => {
  const issued = new Date('2024-01-01T10:00:00Z');
  const stored = { expiresAt: resetExpiry(issued, 30), userActive: true };
  const at = (minutes: number) => new Date(issued.getTime() + minutes * 60_000);

  it('accepts a live token of an active account until its expiry, and not at or after it', () => {
    expect(canReset(stored, at(0))).toBe(true);
    expect(canReset(stored, at(29.99))).toBe(true);
    expect(canReset(stored, at(30))).toBe(false);
    expect(canReset(stored, at(31))).toBe(false);
  });

  it('refuses an unknown (spent or replaced) token and a disabled account', () => {
    expect(canReset(null, at(1))).toBe(false);
    expect(canReset({ ...stored, userActive: false }, at(1))).toBe(false);
  });
});

describe('floorWaitMs', () => {
  it('waits out the rest of the floor, and nothing once it has passed', () => {
    expect(floorWaitMs(1_000, 1_050, 200)).toBe(150);
    expect(floorWaitMs(1_000, 1_200, 200)).toBe(0);
    expect(floorWaitMs(1_000, 1_900, 200)).toBe(0);
  });
});
