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

export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async increment(key: string, windowSeconds: number): Promise<number> {
    const full = `${this.prefix}:rl:${key}`;
    const [[, count]] = (await this.redis.multi().incr(full).expire(full, windowSeconds, 'NX').exec()) as [[unknown, number]];
    return count;
  }

  async peek(key: string): Promise<number> {
    return Number((await this.redis.get(`${this.prefix}:rl:${key}`)) ?? 0);
  }
}
