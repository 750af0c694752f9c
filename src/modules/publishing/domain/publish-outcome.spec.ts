import { describe, expect, it } from '@jest/globals';
import { decideAfterFailure, MAX_ATTEMPTS, type FailureDecision } from './publish-outcome.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const retryIn = (ms: number): FailureDecision => ({ action: 'retry', at: new Date(NOW.getTime() + ms) });

describe('decideAfterFailure', () => {
  it('allows three attempts', () => {
    expect(MAX_ATTEMPTS).toBe(3);
  });

  it('reconciles whenever the outcome is unknown, whatever the code or attempt', () => {
    for (const code of ['network_error', 'rate_limited', 'unknown_error', 'content_rejected']) {
      for (const attempts of [1, 2, 3, 4]) {
        expect(decideAfterFailure({ code, point: 'unknown' }, attempts, NOW)).toEqual({ action: 'reconcile' });
      }
    }
    expect(decideAfterFailure({ code: 'rate_limited', point: 'unknown', retryAfterMs: 5000 }, 1, NOW)).toEqual({ action: 'reconcile' });
  });

  it('fails non-retryable codes at once with their own code', () => {
    for (const code of ['token_expired', 'content_rejected', 'unconfirmed', 'unknown_error', 'something_else']) {
      expect(decideAfterFailure({ code, point: 'before' }, 1, NOW)).toEqual({ action: 'fail', code });
    }
    expect(decideAfterFailure({ code: 'content_rejected', point: 'before', retryAfterMs: 1000 }, 1, NOW)).toEqual({ action: 'fail', code: 'content_rejected' });
  });

  it('retries rate_limited and network_error with exponential backoff: 30 s, then 60 s', () => {
    for (const code of ['rate_limited', 'network_error']) {
      expect(decideAfterFailure({ code, point: 'before' }, 1, NOW)).toEqual(retryIn(30_000));
      expect(decideAfterFailure({ code, point: 'before' }, 2, NOW)).toEqual(retryIn(60_000));
    }
  });

  it('treats a post with no recorded attempt like a first attempt', () => {
    expect(decideAfterFailure({ code: 'network_error', point: 'before' }, 0, NOW)).toEqual(retryIn(30_000));
  });

  it('fails the third attempt (and any later one) with the retryable code', () => {
    for (const code of ['rate_limited', 'network_error']) {
      expect(decideAfterFailure({ code, point: 'before' }, 3, NOW)).toEqual({ action: 'fail', code });
      expect(decideAfterFailure({ code, point: 'before' }, 4, NOW)).toEqual({ action: 'fail', code });
    }
    expect(decideAfterFailure({ code: 'rate_limited', point: 'before', retryAfterMs: 1000 }, 3, NOW)).toEqual({ action: 'fail', code: 'rate_limited' });
  });

  it('waits as long as Retry-After says instead of the backoff', () => {
    expect(decideAfterFailure({ code: 'rate_limited', point: 'before', retryAfterMs: 120_000 }, 1, NOW)).toEqual(retryIn(120_000));
    expect(decideAfterFailure({ code: 'rate_limited', point: 'before', retryAfterMs: 5_000 }, 2, NOW)).toEqual(retryIn(5_000));
  });

  it('waits at least 1 s even when Retry-After says less', () => {
    for (const ms of [0, 1, 999, -5_000]) {
      expect(decideAfterFailure({ code: 'rate_limited', point: 'before', retryAfterMs: ms }, 1, NOW)).toEqual(retryIn(1_000));
    }
    expect(decideAfterFailure({ code: 'rate_limited', point: 'before', retryAfterMs: 1_000 }, 1, NOW)).toEqual(retryIn(1_000));
  });

  it('caps Retry-After at 15 minutes', () => {
    expect(decideAfterFailure({ code: 'rate_limited', point: 'before', retryAfterMs: 15 * 60_000 }, 1, NOW)).toEqual(retryIn(15 * 60_000));
    expect(decideAfterFailure({ code: 'rate_limited', point: 'before', retryAfterMs: 15 * 60_000 + 1 }, 1, NOW)).toEqual(retryIn(15 * 60_000));
    expect(decideAfterFailure({ code: 'rate_limited', point: 'before', retryAfterMs: 24 * 3600_000 }, 2, NOW)).toEqual(retryIn(15 * 60_000));
  });

  it('does not move `now`', () => {
    const now = new Date(NOW);
    decideAfterFailure({ code: 'rate_limited', point: 'before' }, 1, now);
    expect(now.toISOString()).toBe(NOW.toISOString());
  });
});
