import { AppError } from '../../core/index.js';
import type { RateLimitPolicy } from './throttlers.js';

/** Where headers go: an Express response, as the throttler hands it over. */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
  getHeader(name: string): unknown;
}

/** What the throttler knows of a refused request. */
export interface Refusal {
  limit: number;
  /** The window, in milliseconds. */
  ttl: number;
  totalHits: number;
  /** Seconds until the window resets. */
  timeToExpire: number;
  /** Seconds the caller waits. */
  timeToBlockExpire: number;
}

/**
 * The headers of contract §3 from the throttler's. The throttler names each after its throttler
 * (`X-RateLimit-Limit-plan`, `Retry-After-plan`); the contract names the throttler, the policy, in
 * `RateLimit-Policy: "plan";q=60;w=60` and `RateLimit: "plan";r=<remaining>;t=<reset>` instead,
 * beside `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` and, on a 429,
 * `Retry-After`. It is the throttler's own class (the guard) that calls these; they live here, free
 * of the throttler package, so unit specs can load them (see index.ts).
 */
export class RateLimitHeaders {
  /** @param windowSeconds each policy's window, for `RateLimit-Policy`. */
  constructor(private readonly windowSeconds: ReadonlyMap<string, number>) {}

  /**
   * One header as the throttler sets it. It sets limit, remaining, then reset; the draft standard's
   * two headers follow from the same numbers.
   */
  set(res: HeaderSink, throttlerHeader: string, value: string | number): void {
    const split = throttlerHeader.lastIndexOf('-');
    const header = throttlerHeader.slice(0, split);
    const policy = throttlerHeader.slice(split + 1);
    res.setHeader(header, String(value));
    if (header === 'X-RateLimit-Limit') {
      res.setHeader('RateLimit-Policy', `"${policy}";q=${value};w=${this.windowSeconds.get(policy)}`);
    } else if (header === 'X-RateLimit-Reset') {
      res.setHeader('RateLimit', `"${policy}";r=${String(res.getHeader('X-RateLimit-Remaining'))};t=${value}`);
    }
  }

  /**
   * A refusal carries the headers of an answer with nothing remaining (the throttler sets only
   * `Retry-After` on one), and the contract's error.
   */
  refuse(res: HeaderSink, policy: RateLimitPolicy, refusal: Refusal): AppError {
    this.set(res, `X-RateLimit-Limit-${policy}`, refusal.limit);
    this.set(res, `X-RateLimit-Remaining-${policy}`, Math.max(0, refusal.limit - refusal.totalHits));
    this.set(res, `X-RateLimit-Reset-${policy}`, refusal.timeToExpire);
    return new AppError('rate_limited', `Rate limit of ${refusal.limit} requests per ${refusal.ttl / 1000} s reached.`, {
      limit: refusal.limit,
      retry_after: refusal.timeToBlockExpire,
    });
  }
}
