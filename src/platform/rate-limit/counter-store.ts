import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Counts hits in a fixed window. Redis shares counters across instances; memory serves one process. */
export interface CounterStore {
  /** Adds one hit to `key` and answers the count so far; the key expires with its window. */
  increment(key: string, windowSeconds: number): Promise<number>;
  /** As `increment`, and reads `readKey` in the same round trip (null when unset). */
  incrementAndRead(key: string, windowSeconds: number, readKey: string): Promise<{ count: number; value: string | null }>;
  /** The count so far without adding a hit; 0 for an unknown or expired key. */
  peek(key: string): Promise<number>;
  /** Takes back one hit of `key` (a reserved attempt that turned out to be allowed); nothing when it has expired. */
  decrement(key: string): Promise<void>;
  /** The values of `keys` in one round trip, null for an unset one; counts nothing. */
  readMany(keys: string[]): Promise<Array<string | null>>;
  /**
   * Moves `key` to a value it has not held before, living `ttlSeconds` after this change: a read
   * after it differs from every read before it, even across a restart of a shared store.
   */
  bump(key: string, ttlSeconds: number): Promise<void>;
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

  async incrementAndRead(key: string, windowSeconds: number, readKey: string): Promise<{ count: number; value: string | null }> {
    const count = await this.increment(key, windowSeconds);
    const read = await this.peek(readKey);
    return { count, value: read === 0 ? null : String(read) };
  }

  async peek(key: string): Promise<number> {
    const entry = this.counts.get(key);
    return entry && entry.expiresAt > Date.now() ? entry.count : 0;
  }

  async decrement(key: string): Promise<void> {
    const entry = this.counts.get(key);
    if (entry && entry.expiresAt > Date.now() && entry.count > 0) entry.count -= 1;
  }

  async readMany(keys: string[]): Promise<Array<string | null>> {
    return Promise.all(keys.map(async (key) => {
      const read = await this.peek(key);
      return read === 0 ? null : String(read);
    }));
  }

  async bump(key: string, ttlSeconds: number): Promise<void> {
    const count = (await this.peek(key)) + 1;
    this.counts.set(key, { count, expiresAt: Date.now() + ttlSeconds * 1000 });
  }

  private sweep(now: number): void {
    for (const [k, v] of this.counts) if (v.expiresAt <= now) this.counts.delete(k);
  }
}

/**
 * One round trip and one command per hit: a script that counts and, on a key without a TTL, sets the
 * window's expiry. Every authenticated request runs it, and it costs the API a third of a MULTI/EXEC.
 */
const COUNT_IN_WINDOW = `
local count = redis.call('INCR', KEYS[1])
if redis.call('TTL', KEYS[1]) == -1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end`;
const INCREMENT_IN_WINDOW = `${COUNT_IN_WINDOW}
return count`;
/** The same, and the value of a second key (the workspace's access stamp) in the same round trip. */
const INCREMENT_IN_WINDOW_AND_READ = `${COUNT_IN_WINDOW}
return {count, redis.call('GET', KEYS[2])}`;

/** A DECR that never creates the key (an expired window stays gone, with no TTL-less leftover). */
const DECREMENT_IF_PRESENT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end
return 0`;

type WindowedRedis = Redis & {
  incrementInWindow(key: string, windowSeconds: number): Promise<number>;
  incrementInWindowAndRead(key: string, readKey: string, windowSeconds: number): Promise<[number, string | null]>;
  decrementIfPresent(key: string): Promise<number>;
};

export class RedisCounterStore implements CounterStore {
  private readonly redis: WindowedRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    // ioredis sends it by EVALSHA and falls back to EVAL once if the server has not cached it.
    redis.defineCommand('incrementInWindow', { numberOfKeys: 1, lua: INCREMENT_IN_WINDOW });
    redis.defineCommand('incrementInWindowAndRead', { numberOfKeys: 2, lua: INCREMENT_IN_WINDOW_AND_READ });
    redis.defineCommand('decrementIfPresent', { numberOfKeys: 1, lua: DECREMENT_IF_PRESENT });
    this.redis = redis as WindowedRedis;
  }

  async increment(key: string, windowSeconds: number): Promise<number> {
    return this.redis.incrementInWindow(`${this.prefix}:rl:${key}`, windowSeconds);
  }

  async incrementAndRead(key: string, windowSeconds: number, readKey: string): Promise<{ count: number; value: string | null }> {
    // A nil GET ends a Lua table, so an unset key comes back as a one-element reply.
    const [count, value] = await this.redis.incrementInWindowAndRead(`${this.prefix}:rl:${key}`, `${this.prefix}:rl:${readKey}`, windowSeconds);
    return { count, value: value ?? null };
  }

  async peek(key: string): Promise<number> {
    return Number((await this.redis.get(`${this.prefix}:rl:${key}`)) ?? 0);
  }

  async decrement(key: string): Promise<void> {
    await this.redis.decrementIfPresent(`${this.prefix}:rl:${key}`);
  }

  async readMany(keys: string[]): Promise<Array<string | null>> {
    if (keys.length === 0) return [];
    return this.redis.mget(keys.map((key) => `${this.prefix}:rl:${key}`));
  }

  /**
   * A random value, not a counter: a counter restarts with an emptied Redis and could climb back to
   * a value an instance still remembers a session under (a memory store never outlives its readers).
   */
  async bump(key: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(`${this.prefix}:rl:${key}`, randomUUID(), 'EX', ttlSeconds);
  }
}
