import { describe, expect, it } from '@jest/globals';
import { retryDelayMs, settle, type RetryPolicy } from './backoff.js';

const policy: RetryPolicy = { baseMs: 2_000, maxMs: 600_000, maxAttempts: 12 };

describe('outbox back-off', () => {
  it('doubles from the base after each failed attempt, without jitter', () => {
    expect([1, 2, 3, 4, 5].map((a) => retryDelayMs(policy, a, 0))).toEqual([2_000, 4_000, 8_000, 16_000, 32_000]);
  });

  it('is capped at the maximum however many attempts failed', () => {
    expect(retryDelayMs(policy, 9, 0)).toBe(512_000);
    expect(retryDelayMs(policy, 10, 0)).toBe(600_000);
    expect(retryDelayMs(policy, 11, 0)).toBe(600_000);
    expect(retryDelayMs(policy, 1000, 0)).toBe(600_000);
  });

  it('takes at most a fifth off at random, never more, never nothing left', () => {
    expect(retryDelayMs(policy, 1, 0.5)).toBe(1_800);
    expect(retryDelayMs(policy, 1, 0.99999)).toBeGreaterThanOrEqual(1_600);
    expect(retryDelayMs(policy, 1, 0.99999)).toBeLessThan(1_700);
    expect(retryDelayMs(policy, 1, 5)).toBeGreaterThanOrEqual(1_600);
    expect(retryDelayMs({ ...policy, baseMs: 1 }, 1, 0.99)).toBe(1);
  });

  it('settles: done when nothing is left to retry, retry with the delay, give up at the last attempt', () => {
    expect(settle(policy, 3, 0, 0)).toEqual({ kind: 'done' });
    expect(settle(policy, 3, 1, 0)).toEqual({ kind: 'retry', delayMs: 8_000 });
    expect(settle(policy, 11, 2, 0)).toEqual({ kind: 'retry', delayMs: 600_000 });
    expect(settle(policy, 12, 1, 0)).toEqual({ kind: 'give_up' });
    expect(settle(policy, 12, 0, 0)).toEqual({ kind: 'done' });
  });

  it('keeps the whole schedule of 12 attempts under an hour (the documented bound)', () => {
    const total = Array.from({ length: 11 }, (_, i) => retryDelayMs(policy, i + 1, 0)).reduce((a, b) => a + b, 0);
    expect(total).toBe(2_000 * (2 ** 9 - 1) + 2 * 600_000);
    expect(total).toBeLessThan(3_600_000);
  });
});
