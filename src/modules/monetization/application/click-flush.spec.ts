import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../../config/index.js';
import type { ClickCounts } from '../domain/clicks.js';
import type { ClicksRepository } from '../infrastructure/clicks.repository.js';
import { MemoryClickStore } from '../infrastructure/memory-click-store.js';
import { ClickFlushLoop } from './click-flush.js';

const A = 'lnk_01HZX6FQJ5N6E7T2M3A4B5C6D7';
const B = 'lnk_01HZX6FQJ5N6E7T2M3A4B5C6D8';
const config = { runJobsInApi: true, monetization: { clickFlushMs: 1000 } } as AppConfig;
const ds = { transaction: (work: (tx: object) => Promise<unknown>) => work({}), manager: {} } as unknown as DataSource;

/** The database as the flush sees it: batches applied once by id; `failing` makes the next writes throw. */
function fakeDatabase() {
  const applied = new Map<string, Map<string, number>>();
  const state = { failing: 0 };
  const repo = {
    async apply(_tx: unknown, batchId: string, counts: ClickCounts): Promise<boolean> {
      if (state.failing > 0) {
        state.failing -= 1;
        throw new Error('database unavailable');
      }
      if (applied.has(batchId)) return false;
      applied.set(batchId, new Map(counts));
      return true;
    },
    async prune(): Promise<void> {},
  } as unknown as ClicksRepository;
  const totals = (): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const counts of applied.values()) for (const [field, n] of counts) out[field] = (out[field] ?? 0) + n;
    return out;
  };
  return { repo, state, totals };
}

function loop(store: MemoryClickStore, repo: ClicksRepository): ClickFlushLoop {
  return new ClickFlushLoop('worker', config, ds, store, repo);
}

describe('click flush', () => {
  it('writes what was counted, once', async () => {
    const store = new MemoryClickStore();
    const db = fakeDatabase();
    const flush = loop(store, db.repo);
    await Promise.all([store.add(A, '2025-01-01'), store.add(A, '2025-01-01'), store.add(B, '2025-01-02')]);
    expect(await flush.flush()).toBe(1);
    expect(await flush.flush()).toBe(0);
    expect(db.totals()).toEqual({ [`${A}|2025-01-01`]: 2, [`${B}|2025-01-02`]: 1 });
  });

  it('keeps a batch whose write failed and writes it on the next pass, with clicks counted meanwhile', async () => {
    const store = new MemoryClickStore();
    const db = fakeDatabase();
    const flush = loop(store, db.repo);
    await store.add(A, '2025-01-01');
    db.state.failing = 1;
    await expect(flush.flush()).rejects.toThrow('database unavailable');
    expect(db.totals()).toEqual({});
    await store.add(A, '2025-01-01');
    expect(await flush.flush()).toBe(2);
    expect(db.totals()).toEqual({ [`${A}|2025-01-01`]: 2 });
  });

  it('takes over a batch whose claim lapsed (a flush that died) and never applies one twice', async () => {
    const store = new MemoryClickStore();
    const db = fakeDatabase();
    await store.add(B, '2025-01-03');
    const [batch] = await store.take(0);
    // Its writer committed but died before forgetting the batch: the lapsed claim brings it back.
    await db.repo.apply({} as never, batch.id, batch.counts);
    expect(await loop(store, db.repo).flush()).toBe(0);
    expect(await store.take(0)).toEqual([]);
    expect(db.totals()).toEqual({ [`${B}|2025-01-03`]: 1 });
  });

  it('flushes only where background work runs', () => {
    const store = new MemoryClickStore();
    const { repo } = fakeDatabase();
    expect(new ClickFlushLoop('api', { ...config, runJobsInApi: false }, ds, store, repo).flushes).toBe(false);
    expect(new ClickFlushLoop('api', config, ds, store, repo).flushes).toBe(true);
    expect(loop(store, repo).flushes).toBe(true);
  });
});
