import { describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { RedisClickStore } from './redis-click-store.js';

/** The few Redis calls `add` makes, each answered when the test says: a send in flight stays in flight. */
function fakeRedis() {
  const sends: Array<{ counts: Map<string, number>; answer: (err?: Error) => void }> = [];
  const open = (counts: Map<string, number>) =>
    new Promise<void>((resolve, reject) => sends.push({ counts, answer: (err) => (err ? reject(err) : resolve()) }));
  const redis = {
    defineCommand: () => undefined,
    hincrby: async (_key: string, field: string, n: number) => open(new Map([[field, n]])),
    pipeline: () => {
      const counts = new Map<string, number>();
      const p = {
        hincrby: (_key: string, field: string, n: number) => (counts.set(field, n), p),
        exec: async () => {
          await open(counts);
          return [...counts].map(() => [null, 1]);
        },
      };
      return p;
    },
  };
  return { redis: redis as unknown as Redis, sends };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('RedisClickStore.add (group commit)', () => {
  it('sends a lone click at once, and the clicks arriving meanwhile together after it, each resolving when counted', async () => {
    const { redis, sends } = fakeRedis();
    const store = new RedisClickStore(redis, 'test');
    const settled: string[] = [];
    const first = store.add('lnk_A', '2026-11-28').then(() => settled.push('first'));
    await tick();
    expect(sends.map((s) => Object.fromEntries(s.counts))).toEqual([{ 'lnk_A|2026-11-28': 1 }]);

    const later = [
      store.add('lnk_A', '2026-11-28'),
      store.add('lnk_A', '2026-11-28'),
      store.add('lnk_B', '2026-11-28'),
    ].map((p, i) => p.then(() => settled.push(`later ${i}`)));
    await tick();
    expect(sends).toHaveLength(1); // they wait for the send in flight
    expect(settled).toEqual([]);

    sends[0].answer();
    await first;
    await tick();
    expect(sends.map((s) => Object.fromEntries(s.counts))).toEqual([{ 'lnk_A|2026-11-28': 1 }, { 'lnk_A|2026-11-28': 2, 'lnk_B|2026-11-28': 1 }]);
    expect(settled).toEqual(['first']);
    sends[1].answer();
    await Promise.all(later);
    expect(settled).toEqual(['first', 'later 0', 'later 1', 'later 2']);
  });

  it('a failed send rejects its own clicks only, and the next clicks still go', async () => {
    const { redis, sends } = fakeRedis();
    const store = new RedisClickStore(redis, 'test');
    const lost = store.add('lnk_A', '2026-11-28');
    await tick();
    const next = store.add('lnk_A', '2026-11-28');
    sends[0].answer(new Error('Connection is closed.'));
    await expect(lost).rejects.toThrow('Connection is closed.');
    await tick();
    expect(sends).toHaveLength(2);
    sends[1].answer();
    await expect(next).resolves.toBeUndefined();
  });
});
