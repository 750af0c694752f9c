/**
 * What happens to a post after a failed attempt (contract §8). Pure: the publisher feeds it the
 * failure and the post's attempt count and carries out the answer.
 */
export const MAX_ATTEMPTS = 3;
const RETRYABLE = new Set(['rate_limited', 'network_error']);
/** Backoff before attempt n+1 when the platform named no Retry-After: 30 s, 60 s, 120 s ... */
const BASE_BACKOFF_MS = 30_000;
const MAX_BACKOFF_MS = 15 * 60_000;

export interface AttemptFailure {
  code: string;
  /** `before`: nothing was made public. `unknown`: the irreversible call was sent, outcome unknown. */
  point: 'before' | 'unknown';
  retryAfterMs?: number;
}

export type FailureDecision =
  | { action: 'retry'; at: Date }
  | { action: 'fail'; code: string }
  | { action: 'reconcile' };

export function decideAfterFailure(failure: AttemptFailure, attempts: number, now: Date): FailureDecision {
  if (failure.point === 'unknown') return { action: 'reconcile' };
  if (!RETRYABLE.has(failure.code) || attempts >= MAX_ATTEMPTS) return { action: 'fail', code: failure.code };
  const backoff = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** Math.max(0, attempts - 1));
  const wait = failure.retryAfterMs !== undefined ? Math.min(MAX_BACKOFF_MS, Math.max(failure.retryAfterMs, 1000)) : backoff;
  return { action: 'retry', at: new Date(now.getTime() + wait) };
}
