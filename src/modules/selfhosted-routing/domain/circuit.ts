/**
 * An endpoint's circuit breaker as a table (contract §13). `closed` lets requests through and
 * counts consecutive failures of the counted kinds; at the threshold it opens. `open` refuses
 * until its retry time, then lets exactly one trial through (`half_open`). The trial's success
 * closes it; the trial's failure opens it again for another full window.
 *
 * The shared-state adapters apply these same rules: the in-memory one calls these functions, the
 * Redis one runs them as a script (the store contract spec holds both to the same cases).
 */
export const CIRCUIT_STATES = ['closed', 'open', 'half_open'] as const;
export type CircuitState = (typeof CIRCUIT_STATES)[number];

export interface Circuit {
  state: CircuitState;
  consecutiveFailures: number;
  openedAt: number | null;
  retryAt: number | null;
  /** The lease token of the one request let through while half open, and when its claim lapses. */
  trialToken: string | null;
  trialUntil: number | null;
}

export interface CircuitPolicy {
  threshold: number;
  resetMs: number;
}

export const CLOSED: Circuit = { state: 'closed', consecutiveFailures: 0, openedAt: null, retryAt: null, trialToken: null, trialUntil: null };

/** What a new request may do: pass, pass as the half-open trial, or wait for the circuit. */
export type Admission = 'pass' | 'trial' | 'refused';

export function admission(c: Circuit, now: number): Admission {
  if (c.state === 'closed') return 'pass';
  if (c.state === 'open') return now >= (c.retryAt ?? 0) ? 'trial' : 'refused';
  // Half open: one trial at a time; a trial whose holder died (its claim lapsed) is handed on.
  return now >= (c.trialUntil ?? 0) ? 'trial' : 'refused';
}

export function claimTrial(c: Circuit, token: string, now: number, leaseMs: number): Circuit {
  return { ...c, state: 'half_open', trialToken: token, trialUntil: now + leaseMs };
}

export function afterSuccess(c: Circuit, token: string): Circuit {
  if (c.state === 'closed') return { ...c, consecutiveFailures: 0 };
  if (c.state === 'half_open' && c.trialToken === token) return CLOSED;
  // A request from before the circuit opened proves little about now: the trial decides.
  return c;
}

/**
 * A failed request. `counted`: the endpoint's fault (timeout, 5xx, refused or reset connection);
 * a bad request (4xx) is not, and a trial that ends so is handed to the next request.
 */
export function afterFailure(c: Circuit, token: string, counted: boolean, now: number, policy: CircuitPolicy): Circuit {
  const isTrial = c.state === 'half_open' && c.trialToken === token;
  if (!counted) return isTrial ? { ...c, trialToken: null, trialUntil: null } : c;
  if (c.state === 'open') return c;
  if (c.state === 'half_open') return isTrial ? opened(c.consecutiveFailures + 1, now, policy) : c;
  const failures = c.consecutiveFailures + 1;
  return failures >= policy.threshold ? opened(failures, now, policy) : { ...c, consecutiveFailures: failures };
}

function opened(failures: number, now: number, policy: CircuitPolicy): Circuit {
  return { state: 'open', consecutiveFailures: failures, openedAt: now, retryAt: now + policy.resetMs, trialToken: null, trialUntil: null };
}
