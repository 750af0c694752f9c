import { describe, expect, it } from '@jest/globals';
import { EMAIL_TOKEN_TTL_MS, hashEmailToken, newEmailToken, requestAllowance, tokenUsable, type EmailTokenState } from './email-tokens.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const at = (msFromNow: number) => new Date(NOW.getTime() + msFromNow);
const MIN = 60_000;

function token(overrides: Partial<EmailTokenState> = {}): EmailTokenState {
  return { purpose: 'verify', email: 'ada@example.test', expiresAt: at(EMAIL_TOKEN_TTL_MS), usedAt: null, ...overrides };
}

describe('email tokens', () => {
  it('are 32 random bytes in base64url, stored only as a SHA-256 hex digest', () => {
    const a = newEmailToken();
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.token, 'base64url')).toHaveLength(32);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.hash).toBe(hashEmailToken(a.token));
    expect(a.hash).not.toContain(a.token);
    expect(newEmailToken().token).not.toBe(a.token);
  });

  it('live for 24 hours', () => {
    expect(EMAIL_TOKEN_TTL_MS).toBe(24 * 60 * MIN);
  });
});

describe('tokenUsable', () => {
  it('accepts an unused, unexpired token for the address the user has (any case)', () => {
    expect(tokenUsable(token(), 'Ada@Example.TEST', NOW)).toBe(true);
  });

  it('refuses a used token', () => {
    expect(tokenUsable(token({ usedAt: at(-MIN) }), 'ada@example.test', NOW)).toBe(false);
  });

  it('refuses a token at and after its expiry, accepts it a moment before', () => {
    expect(tokenUsable(token({ expiresAt: at(1) }), 'ada@example.test', NOW)).toBe(true);
    expect(tokenUsable(token({ expiresAt: NOW }), 'ada@example.test', NOW)).toBe(false);
    expect(tokenUsable(token({ expiresAt: at(-1) }), 'ada@example.test', NOW)).toBe(false);
  });

  it('refuses a verification made for an address the user has since left', () => {
    expect(tokenUsable(token({ email: 'old@example.test' }), 'new@example.test', NOW)).toBe(false);
  });

  it('accepts a change token whatever the current address (it names the new one)', () => {
    expect(tokenUsable(token({ purpose: 'change', email: 'new@example.test' }), 'ada@example.test', NOW)).toBe(true);
  });
});

describe('requestAllowance', () => {
  it('allows up to the limit within the window', () => {
    expect(requestAllowance([], NOW)).toEqual({ allowed: true });
    expect(requestAllowance([at(-50 * MIN), at(-40 * MIN), at(-30 * MIN), at(-1 * MIN)], NOW)).toEqual({ allowed: true });
  });

  it('refuses the request past the limit until the oldest in the window leaves it', () => {
    const five = [at(-50 * MIN), at(-40 * MIN), at(-30 * MIN), at(-20 * MIN), at(-1 * MIN)];
    expect(requestAllowance(five, NOW)).toEqual({ allowed: false, retryAfterSeconds: 10 * 60 });
  });

  it('does not count requests older than the window', () => {
    const old = [at(-61 * MIN), at(-90 * MIN), at(-120 * MIN), at(-200 * MIN), at(-1 * MIN)];
    expect(requestAllowance(old, NOW)).toEqual({ allowed: true });
  });

  it('answers at least one second and takes the times in any order', () => {
    const five = [at(-1), at(-60 * MIN + 1), at(-2), at(-3), at(-4)];
    expect(requestAllowance(five, NOW)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('with more requests than the limit waits for enough of them to leave', () => {
    const six = [at(-55 * MIN), at(-50 * MIN), at(-40 * MIN), at(-30 * MIN), at(-20 * MIN), at(-10 * MIN)];
    expect(requestAllowance(six, NOW)).toEqual({ allowed: false, retryAfterSeconds: 10 * 60 });
  });
});
