import { describe, expect, it } from '@jest/globals';
import { MemoryCounterStore } from './counter-store.js';
import { CounterThrottlerStorage, countedKey } from './counter-throttler-storage.js';

describe('CounterThrottlerStorage', () => {
  it('counts per key in a fixed window and answers the seconds left in it', async () => {
    const storage = new CounterThrottlerStorage(new MemoryCounterStore());
    const first = await storage.increment('ws:a', 60_000, 2);
    expect(first).toEqual({ totalHits: 1, timeToExpire: expect.any(Number), isBlocked: false, timeToBlockExpire: 0 });
    expect(first.timeToExpire).toBeGreaterThanOrEqual(1);
    expect(first.timeToExpire).toBeLessThanOrEqual(60);
    expect((await storage.increment('ws:a', 60_000, 2)).totalHits).toBe(2);
    expect((await storage.increment('ws:b', 60_000, 2)).totalHits).toBe(1);
  });

  it('blocks past the limit until the window resets', async () => {
    const storage = new CounterThrottlerStorage(new MemoryCounterStore());
    await storage.increment('ws:a', 60_000, 1);
    const over = await storage.increment('ws:a', 60_000, 1);
    expect(over).toMatchObject({ totalHits: 2, isBlocked: true });
    expect(over.timeToBlockExpire).toBe(over.timeToExpire);
  });

  it('answers a counted key with its count, counting nothing', async () => {
    const store = new MemoryCounterStore();
    const storage = new CounterThrottlerStorage(store);
    expect(await storage.increment(countedKey('ws:a', 61), 60_000, 60)).toMatchObject({ totalHits: 61, isBlocked: true });
    expect(await storage.increment(countedKey('ws:a', 3), 60_000, 60)).toMatchObject({ totalHits: 3, isBlocked: false });
    expect((await storage.increment('ws:a', 60_000, 60)).totalHits).toBe(1);
  });
});
