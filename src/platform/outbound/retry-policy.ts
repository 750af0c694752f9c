/** How a call retries what may pass on its own (429, 5xx, network errors). */
export interface RetryOptions {
  /** Retries after the first attempt; 0 disables retrying. */
  retries?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** The longest Retry-After we honour; a server asking for more gets this much. */
  maxRetryAfterMs?: number;
  /** Injected by tests to observe delays without waiting them out. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export const RETRY_DEFAULTS = { retries: 2, baseDelayMs: 250, maxDelayMs: 10_000, maxRetryAfterMs: 30_000 } as const;

export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before retry number `attempt` (1-based): the server's Retry-After when it gave one
 * (capped), else exponential backoff with jitter so many clients do not retry in lockstep.
 */
export function retryDelay(attempt: number, opts: RetryOptions, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, opts.maxRetryAfterMs ?? RETRY_DEFAULTS.maxRetryAfterMs);
  const base = opts.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs;
  const ceiling = Math.min(opts.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs, base * 2 ** (attempt - 1));
  const random = opts.random ?? Math.random;
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Waits `ms`, ending early with the signal's reason when it aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
