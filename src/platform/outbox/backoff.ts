/** The retry policy of outbox deliveries. */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  maxAttempts: number;
}

/**
 * The wait before attempt `attempts + 1`, after `attempts` failed ones: base × 2^(attempts-1),
 * capped at maxMs, with up to 20 % taken off at random (`jitter` in [0, 1)) so events that failed
 * together do not all come back in the same instant.
 */
export function retryDelayMs(policy: RetryPolicy, attempts: number, jitter: number): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 40);
  const full = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  return Math.max(1, Math.round(full * (1 - 0.2 * Math.min(Math.max(jitter, 0), 0.999))));
}

/** What to do with an event after an attempt: done, tried again later, or given up. */
export type Settlement =
  | { kind: 'done' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'give_up' };

/**
 * `retryable`: the subscribers that failed this attempt and may succeed later (a permanent failure
 * counts as finished for its subscriber). `attempts` counts this one.
 */
export function settle(policy: RetryPolicy, attempts: number, retryable: number, jitter = Math.random()): Settlement {
  if (retryable === 0) return { kind: 'done' };
  if (attempts >= policy.maxAttempts) return { kind: 'give_up' };
  return { kind: 'retry', delayMs: retryDelayMs(policy, attempts, jitter) };
}
