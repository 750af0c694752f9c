import type { Redis } from 'ioredis';

/** Counts hits in a fixed window. Redis shares counters across instances; memory serves one process. */
export interface CounterStore {
  /** Adds one hit to `key` and answers the count so far; the key expires with its window. */
  increment(key: string, windowSeconds: number): Promise<number>;
  /** The count so far without adding a hit; 0 for an unknown or expired key. */
  peek(key: string): Promise<number>;
}

export class MemoryCounterStore implements CounterStore {
  private readonly counts = new Map<string, { count: number; expiresAt: number }>();

  async increment(key: string, windowSeconds: number): Promise<number> {
    const now = Date.now();
    const entry = this.counts.get(key);
    if (!entry || entry.expiresAt <= now) {
      if (this.counts.size > 50_000) this.sweep(now);
      this.counts.set(key, { count: 1, expiresAt: now + windowSeconds * 1000 });
      return 1;
    }
    entry.count += 1;
    return entry.count;
  }

  async peek(key: string): Promise<number> {
    const entry = this.counts.get(key);
    return entry && entry.expiresAt > Date.now() ? entry.count : 0;
  }

  private sweep(now: number): void {
    for (const [k, v] of this.counts) if (v.expiresAt <= now) this.counts.delete(k);
  }
}

/**
 * One round trip and one command per hit: a script that counts and, on a key without a TTL, sets the
 * window's expiry. Every authenticated request runs it, and it costs the API a third of a MULTI/EXEC.
 */
const INCREMENT_IN_WINDOW = `
local count = redis.call('INCR', KEYS[1])
if redis.call('TTL', KEYS[1]) == -1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count`;

type WindowedRedis = Redis & { incrementInWindow(key: string, windowSeconds: number): Promise<number> };

export class RedisCounterStore implements CounterStore {
  private readonly redis: WindowedRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    // ioredis sends it by EVALSHA and falls back to EVAL once if the server has not cached it.
    redis.defineCommand('incrementInWindow', { numberOfKeys: 1, lua: INCREMENT_IN_WINDOW });
    this.redis = redis as WindowedRedis;
  }

  async increment(key: string, windowSeconds: number): Promise<number> {
    return this.redis.incrementInWindow(`${this.prefix}:rl:${key}`, windowSeconds);
  }

  async peek(key: string): Promise<number> {
    return Number((await this.redis.get(`${this.prefix}:rl:${key}`)) ?? 0);
  }
}
