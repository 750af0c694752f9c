import { describe, expect, it } from '@jest/globals';
import { decideAfterFailure, decideUnreconciled, MAX_ATTEMPTS, RECONCILE_WINDOW_MS, SHOW_GRACE_MS, type FailureDecision, type UnreconciledPost } from './publish-outcome.js';

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

describe('decideUnreconciled', () => {
  // The defaults: a 30 s call budget and a 40 s lease.
  const base: UnreconciledPost = { shown: 'absent', bySweeper: true, callAgeMs: 45_000, callBudgetMs: 30_000, leaseMs: 40_000 };

  it('sends once more a post the platform confirms it does not have, when the sweeper checks it after the call budget and grace', () => {
    expect(SHOW_GRACE_MS).toBe(10_000);
    expect(decideUnreconciled(base)).toEqual({ action: 'resend' });
    expect(decideUnreconciled({ ...base, callAgeMs: 40_000 })).toEqual({ action: 'resend' });
    // Long after the call: still confirmed absent, so still sent (never given up as unconfirmed).
    expect(decideUnreconciled({ ...base, callAgeMs: RECONCILE_WINDOW_MS * 2 })).toEqual({ action: 'resend' });
  });

  it('a default lease is enough for the first takeover to settle the call: a dead worker\'s post is sent again at once', () => {
    // The lease runs from the call mark at the earliest: the sweeper never reads a call younger than the lease.
    expect(decideUnreconciled({ ...base, callAgeMs: base.leaseMs })).toEqual({ action: 'resend' });
  });

  it('checks again, never sends, an absent post whose call may still be made (within budget and grace)', () => {
    expect(decideUnreconciled({ ...base, callAgeMs: 39_999 })).toEqual({ action: 'check_again', inMs: 40_000 });
    // A short lease: checked again a lease later (platforms show posts late), and no later than when its absence counts.
    expect(decideUnreconciled({ ...base, leaseMs: 3_000, callAgeMs: 5_000 })).toEqual({ action: 'check_again', inMs: 3_000 });
    expect(decideUnreconciled({ ...base, leaseMs: 30_000, callAgeMs: 25_000 })).toEqual({ action: 'check_again', inMs: 30_000 });
    expect(decideUnreconciled({ ...base, callBudgetMs: 100_000, callAgeMs: 100_000 })).toEqual({ action: 'check_again', inMs: 40_000 });
    expect(decideUnreconciled({ ...base, leaseMs: 3_000, callAgeMs: 38_500 })).toEqual({ action: 'check_again', inMs: 3_000 });
  });

  it('never sends from the attempt\'s own check: it leaves the post to the sweeper', () => {
    expect(decideUnreconciled({ ...base, bySweeper: false, callAgeMs: 31_000 })).toEqual({ action: 'check_again', inMs: 40_000 });
    expect(decideUnreconciled({ ...base, bySweeper: false, callAgeMs: 5 * 60_000 })).toEqual({ action: 'check_again', inMs: 150_000 });
  });

  it('checks a platform that cannot tell again with back-off (half the call\'s age, at least a lease, at most 10 min), then gives up after 30 min', () => {
    const unknown = { ...base, shown: 'unknown' as const };
    expect(decideUnreconciled({ ...unknown, callAgeMs: 45_000 })).toEqual({ action: 'check_again', inMs: 40_000 });
    expect(decideUnreconciled({ ...unknown, callAgeMs: 200_000 })).toEqual({ action: 'check_again', inMs: 100_000 });
    expect(decideUnreconciled({ ...unknown, callAgeMs: 25 * 60_000 })).toEqual({ action: 'check_again', inMs: 10 * 60_000 });
    expect(RECONCILE_WINDOW_MS).toBe(30 * 60_000);
    expect(decideUnreconciled({ ...unknown, callAgeMs: RECONCILE_WINDOW_MS - 1 })).toEqual({ action: 'check_again', inMs: 10 * 60_000 });
    expect(decideUnreconciled({ ...unknown, callAgeMs: RECONCILE_WINDOW_MS })).toEqual({ action: 'give_up' });
  });

  it('checks a platform that cannot tell several times before giving up, from a dead worker\'s first takeover', () => {
    let age = 40_000;
    let checks = 1;
    for (;;) {
      const d = decideUnreconciled({ ...base, shown: 'unknown', callAgeMs: age });
      if (d.action !== 'check_again') break;
      age += d.inMs;
      checks += 1;
    }
    expect(checks).toBeGreaterThanOrEqual(8);
    expect(age).toBeGreaterThanOrEqual(RECONCILE_WINDOW_MS);
  });
});
