import { describe, expect, it } from '@jest/globals';
import { admission, afterFailure, afterSuccess, claimTrial, CLOSED, type Circuit } from './circuit.js';

const POLICY = { threshold: 3, resetMs: 300_000 };
const T = 1_000_000;

function failTimes(n: number, counted = true, c: Circuit = CLOSED): Circuit {
  let out = c;
  for (let i = 0; i < n; i++) out = afterFailure(out, `t${i}`, counted, T, POLICY);
  return out;
}

describe('circuit breaker', () => {
  it('stays closed below the threshold and opens at it, with its retry time', () => {
    expect(failTimes(2)).toMatchObject({ state: 'closed', consecutiveFailures: 2 });
    expect(failTimes(3)).toEqual({ state: 'open', consecutiveFailures: 3, openedAt: T, retryAt: T + POLICY.resetMs, trialToken: null, trialUntil: null });
  });

  it('does not count a bad request (4xx)', () => {
    expect(failTimes(5, false)).toEqual(CLOSED);
  });

  it('a success while closed resets the count', () => {
    expect(afterSuccess(failTimes(2), 'x')).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
  });

  it('refuses while open, then admits one trial; a second caller waits while the trial runs', () => {
    const open = failTimes(3);
    expect(admission(open, T + POLICY.resetMs - 1)).toBe('refused');
    expect(admission(open, T + POLICY.resetMs)).toBe('trial');
    const half = claimTrial(open, 'trial', T + POLICY.resetMs, 30_000);
    expect(half).toMatchObject({ state: 'half_open', trialToken: 'trial' });
    expect(admission(half, T + POLICY.resetMs + 1)).toBe('refused');
    // The trial's holder died: once its claim lapses the next caller is the trial.
    expect(admission(half, T + POLICY.resetMs + 30_000)).toBe('trial');
  });

  it("the trial's success closes; its failure reopens for a whole window; others' outcomes decide nothing", () => {
    const half = claimTrial(failTimes(3), 'trial', T + POLICY.resetMs, 30_000);
    expect(afterSuccess(half, 'trial')).toEqual(CLOSED);
    expect(afterSuccess(half, 'straggler')).toBe(half);
    const later = T + POLICY.resetMs + 5;
    expect(afterFailure(half, 'trial', true, later, POLICY)).toMatchObject({ state: 'open', openedAt: later, retryAt: later + POLICY.resetMs });
    expect(afterFailure(half, 'straggler', true, later, POLICY)).toBe(half);
  });

  it('a trial ending in a bad request hands the trial on without opening', () => {
    const half = claimTrial(failTimes(3), 'trial', T, 30_000);
    expect(afterFailure(half, 'trial', false, T, POLICY)).toMatchObject({ state: 'half_open', trialToken: null, trialUntil: null });
  });

  it('failures while open change nothing (the window is not pushed back)', () => {
    const open = failTimes(3);
    expect(afterFailure(open, 'late', true, T + 10, POLICY)).toBe(open);
  });
});
