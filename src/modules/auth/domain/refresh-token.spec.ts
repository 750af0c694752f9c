import { describe, expect, it } from '@jest/globals';
import { decideRefresh, generateRefreshToken, hashRefreshToken, type RefreshTokenState } from './refresh-token.js';

const NOW = new Date('2026-01-10T12:00:00Z');
const LATER = new Date('2026-02-01T00:00:00Z');
const EARLIER = new Date('2026-01-01T00:00:00Z');

function state(overrides: Partial<RefreshTokenState> = {}): RefreshTokenState {
  return { tokenExpiresAt: LATER, rotatedAt: null, sessionRevokedAt: null, sessionExpiresAt: LATER, userActive: true, ...overrides };
}

describe('refresh tokens', () => {
  it('are 32 random bytes in base64url, never the same twice', () => {
    const a = generateRefreshToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(generateRefreshToken()).not.toBe(a);
  });

  it('are stored as a SHA-256 hex digest, stable for the same token', () => {
    const token = generateRefreshToken();
    expect(hashRefreshToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashRefreshToken(token)).toBe(hashRefreshToken(token));
    expect(hashRefreshToken(token)).not.toBe(hashRefreshToken(`${token}x`));
  });
});

describe('decideRefresh', () => {
  it('rotates a live, unspent token', () => {
    expect(decideRefresh(state(), NOW)).toBe('rotate');
  });

  it('treats an unknown token as invalid', () => {
    expect(decideRefresh(null, NOW)).toBe('invalid');
  });

  it('treats a spent token as reuse, even after its session ended', () => {
    expect(decideRefresh(state({ rotatedAt: EARLIER }), NOW)).toBe('reused');
    expect(decideRefresh(state({ rotatedAt: EARLIER, sessionRevokedAt: EARLIER }), NOW)).toBe('reused');
  });

  it('refuses expired tokens, ended sessions and disabled users', () => {
    expect(decideRefresh(state({ tokenExpiresAt: EARLIER }), NOW)).toBe('invalid');
    expect(decideRefresh(state({ tokenExpiresAt: NOW }), NOW)).toBe('invalid');
    expect(decideRefresh(state({ sessionExpiresAt: EARLIER }), NOW)).toBe('invalid');
    expect(decideRefresh(state({ sessionRevokedAt: EARLIER }), NOW)).toBe('invalid');
    expect(decideRefresh(state({ userActive: false }), NOW)).toBe('invalid');
  });
});
