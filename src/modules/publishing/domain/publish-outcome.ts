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

/**
 * Past its call budget, how long a platform is given to show a post it made before a listing
 * without it counts as the platform confirming it does not exist.
 */
export const SHOW_GRACE_MS = 10_000;
/** How long after its call a post the platform cannot tell about is still checked again; then it fails `unconfirmed`. */
export const RECONCILE_WINDOW_MS = 30 * 60_000;
/** The longest wait between two checks of one post. */
const MAX_RECHECK_MS = 10 * 60_000;

export interface UnreconciledPost {
  /** `absent`: the platform's listing does not show the post. `unknown`: the platform could not be read this time. */
  shown: 'absent' | 'unknown';
  /** The sweeper's check of a post whose attempt is over (its worker died, or it left the post for a later check). */
  bySweeper: boolean;
  /** Time since the irreversible call was sent. */
  callAgeMs: number;
  /** The budget of one platform call (`PUBLISH_TIMEOUT_MS`). */
  callBudgetMs: number;
  leaseMs: number;
}

export type ReconcileDecision = { action: 'resend' } | { action: 'check_again'; inMs: number } | { action: 'give_up' };

/**
 * What happens to a post whose call was sent but which the platform does not show (contract §8).
 * Only the sweeper sends it again, once the call is over by its budget and the platform's grace:
 * then an absent post is one the platform confirms it never made. Until then, and whenever the
 * platform cannot be read, it is checked again with back-off (at least a lease apart, half the
 * call's age, at most 10 min), and given up as `unconfirmed` only when the platform still cannot
 * tell 30 min after the call.
 */
export function decideUnreconciled(p: UnreconciledPost): ReconcileDecision {
  const settled = p.callAgeMs >= p.callBudgetMs + SHOW_GRACE_MS;
  if (p.shown === 'absent' && settled && p.bySweeper) return { action: 'resend' };
  if (p.shown === 'unknown' && p.callAgeMs >= RECONCILE_WINDOW_MS) return { action: 'give_up' };
  let inMs = Math.min(MAX_RECHECK_MS, Math.max(p.leaseMs, p.callAgeMs / 2));
  // An absent post is looked at again as soon as its absence would count.
  if (p.shown === 'absent' && !settled) inMs = Math.min(inMs, Math.max(p.leaseMs, p.callBudgetMs + SHOW_GRACE_MS - p.callAgeMs));
  return { action: 'check_again', inMs: Math.round(inMs) };
}
