import type { ThrottlerStorage } from '@nestjs/throttler';
import type { CounterStore } from './counter-store.js';
import { fixedWindow, windowKey } from './rate-limiter.js';

/** What the throttler reads back for a request (its package does not export the type by name). */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** Separates a tracker from a count already made; neither workspace ids nor addresses contain it. */
const COUNTED = '#';

/**
 * The throttler key of a request whose hit was already counted. A session request is counted in the
 * round trip that also reads its workspace's access stamp, before the session check can name the
 * plan, and so the limit, the throttler needs first; the key carries that count to the storage, so
 * the request is counted once and costs one round trip.
 */
export function countedKey(tracker: string, hits: number): string {
  return `${tracker}${COUNTED}${hits}`;
}

/**
 * @nestjs/throttler's storage over the CounterStore: fixed windows (contract §3), in Redis when it
 * is configured, so every instance counts against the same budget, else in memory. `ttl` is the
 * window in milliseconds; a caller over `limit` is blocked until the window resets, which is also its
 * `Retry-After` (`blockDuration` does not apply: a fixed window ends for everyone at once).
 */
export class CounterThrottlerStorage implements ThrottlerStorage {
  constructor(private readonly store: CounterStore) {}

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const windowSeconds = ttl / 1000;
    const split = key.lastIndexOf(COUNTED);
    if (split >= 0) return record(Number(key.slice(split + 1)), limit, windowSeconds, Date.now());
    const now = Date.now();
    const hits = await this.store.increment(windowKey(key, windowSeconds, now), windowSeconds);
    return record(hits, limit, windowSeconds, now);
  }
}

function record(totalHits: number, limit: number, windowSeconds: number, nowMs: number): ThrottlerStorageRecord {
  const { resetSeconds } = fixedWindow(totalHits, limit, windowSeconds, nowMs);
  const isBlocked = totalHits > limit;
  return { totalHits, timeToExpire: resetSeconds, isBlocked, timeToBlockExpire: isBlocked ? resetSeconds : 0 };
}
