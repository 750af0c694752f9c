import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RouterState } from '../../application/router-state.js';
import { MemoryRouterState } from './memory-router-state.js';
import { RedisRouterState } from './redis-router-state.js';

const POLICY = { threshold: 3, resetMs: 1_000 };
const LEASE = 500;
const HEALTH_TTL = 30_000;
// The local Redis every machine of this project runs (as the queue's consumer spec uses it).
const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
const prefix = `spec-router-${randomUUID()}`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

// The same cases hold both adapters to domain/circuit.ts's rules.
describe.each([
  ['memory', () => new MemoryRouterState()],
  ['redis', () => new RedisRouterState(redis, `${prefix}:${randomUUID()}`)],
] as Array<[string, () => RouterState]>)('RouterState (%s)', (_name, make) => {
  const T = 1_000_000;
  /** A claim on one endpoint, as the router makes it for a job that only it serves. */
  const claimOn = (s: RouterState, id: string, max: number, now: number) =>
    s.claimBest({ candidates: [{ id, maxConcurrency: max, tried: false }], now, leaseMs: LEASE, healthTtlMs: HEALTH_TTL });
  const slotOn = async (s: RouterState, id: string, now: number) => {
    const c = await claimOn(s, id, 8, now);
    if (!('lease' in c)) throw new Error(`no slot on ${id}: ${c.refused}`);
    return c.lease;
  };

  it('hands out at most max slots, and a released or lapsed one again', async () => {
    const s = make();
    const a = await claimOn(s, 'ep_a', 2, T);
    const b = await claimOn(s, 'ep_a', 2, T);
    expect('lease' in a && 'lease' in b).toBe(true);
    expect(await claimOn(s, 'ep_a', 2, T)).toEqual({ refused: 'none' });
    expect((await s.runtime(['ep_a'], T)).get('ep_a')!.load).toBe(2);
    if ('lease' in a) await s.release(a.lease);
    expect('lease' in (await claimOn(s, 'ep_a', 2, T))).toBe(true);
    // Nobody releases the two slots held now (their holders died): at the end of their lease both lapse.
    expect(await claimOn(s, 'ep_a', 2, T + LEASE - 1)).toEqual({ refused: 'none' });
    expect('lease' in (await claimOn(s, 'ep_a', 2, T + LEASE))).toBe(true);
    expect((await s.runtime(['ep_a'], T + LEASE)).get('ep_a')!.load).toBe(1);
  });

  it('settling a request, either way, frees its slot', async () => {
    const s = make();
    const a = await claimOn(s, 'ep_f', 2, T);
    const b = await claimOn(s, 'ep_f', 2, T);
    if (!('lease' in a) || !('lease' in b)) throw new Error('no slot');
    await s.succeeded(a.lease, 10, T);
    await s.failed(b.lease, 'x', true, T, POLICY);
    expect((await s.runtime(['ep_f'], T)).get('ep_f')!.load).toBe(0);
  });

  it('a renewed lease outlives its first term', async () => {
    const s = make();
    const a = await claimOn(s, 'ep_r', 1, T);
    if (!('lease' in a)) throw new Error('no slot');
    await s.renew(a.lease, T + LEASE - 1, LEASE);
    expect(await claimOn(s, 'ep_r', 1, T + LEASE + 10)).toEqual({ refused: 'none' });
  });

  it('opens after the threshold of counted failures; a bad request does not count', async () => {
    const s = make();
    const fail = async (counted: boolean, at = T) => {
      const c = await claimOn(s, 'ep_c', 8, at);
      if (!('lease' in c)) return c.refused;
      const state = await s.failed(c.lease, 'boom', counted, at, POLICY);
      await s.release(c.lease);
      return state;
    };
    expect(await fail(true)).toBe('closed');
    expect(await fail(false)).toBe('closed');
    expect(await fail(true)).toBe('closed');
    expect(await fail(true)).toBe('open');
    const rt = (await s.runtime(['ep_c'], T)).get('ep_c')!;
    expect(rt.circuit).toMatchObject({ state: 'open', consecutiveFailures: 3, openedAt: T, retryAt: T + POLICY.resetMs });
    expect(rt.lastError).toBe('boom');
    expect(await claimOn(s, 'ep_c', 8, T + POLICY.resetMs - 1)).toEqual({ refused: 'none' });
  });

  it('a success resets the count of consecutive failures', async () => {
    const s = make();
    for (let i = 0; i < 2; i++) {
      await s.failed(await slotOn(s, 'ep_s', T), 'x', true, T, POLICY);
    }
    expect(await s.succeeded(await slotOn(s, 'ep_s', T), 100, T)).toBe('closed');
    expect(await s.failed(await slotOn(s, 'ep_s', T), 'x', true, T, POLICY)).toBe('closed');
    const rt = (await s.runtime(['ep_s'], T)).get('ep_s')!;
    expect(rt.circuit.consecutiveFailures).toBe(1);
    expect(rt.avgLatencyMs).toBe(100);
  });

  it('after the reset window lets one trial through; its success closes, its failure reopens', async () => {
    const s = make();
    for (let i = 0; i < 3; i++) {
      await s.failed(await slotOn(s, 'ep_h', T), 'down', true, T, POLICY);
    }
    const later = T + POLICY.resetMs;
    const trial = await claimOn(s, 'ep_h', 8, later);
    expect('lease' in trial && trial.lease.trial).toBe(true);
    expect(await claimOn(s, 'ep_h', 8, later)).toEqual({ refused: 'none' });
    if (!('lease' in trial)) return;
    expect(await s.failed(trial.lease, 'still down', true, later, POLICY)).toBe('open');
    expect((await s.runtime(['ep_h'], later)).get('ep_h')!.circuit.retryAt).toBe(later + POLICY.resetMs);
    const second = await claimOn(s, 'ep_h', 8, later + POLICY.resetMs);
    if (!('lease' in second)) throw new Error('no second trial');
    expect(await s.succeeded(second.lease, 50, later + POLICY.resetMs)).toBe('closed');
    expect((await s.runtime(['ep_h'], later + POLICY.resetMs)).get('ep_h')!.circuit).toMatchObject({ state: 'closed', consecutiveFailures: 0, openedAt: null });
  });

  it('a trial whose holder died is handed on when its claim lapses', async () => {
    const s = make();
    for (let i = 0; i < 3; i++) {
      await s.failed(await slotOn(s, 'ep_d', T), 'down', true, T, POLICY);
    }
    const at = T + POLICY.resetMs;
    expect('lease' in (await claimOn(s, 'ep_d', 8, at))).toBe(true);
    expect(await claimOn(s, 'ep_d', 8, at + LEASE - 1)).toEqual({ refused: 'none' });
    const next = await claimOn(s, 'ep_d', 8, at + LEASE);
    expect('lease' in next && next.lease.trial).toBe(true);
  });

  it('records health, counts outcomes, and forgets a deleted endpoint', async () => {
    const s = make();
    await s.recordHealth('ep_x', 'unhealthy', 'probe refused', T);
    expect((await s.runtime(['ep_x'], T)).get('ep_x')).toMatchObject({ health: 'unhealthy', healthCheckedAt: T, lastError: 'probe refused' });
    expect(await s.claimProbe('ep_x', 10_000)).toBe(true);
    expect(await s.claimProbe('ep_x', 10_000)).toBe(false);
    await s.succeeded(await slotOn(s, 'ep_y', T), 40, T);
    expect(await s.countCloud({ fallback: null }, T + 1)).toBe('counted');
    await s.countCloud({ fallback: 'timeout' }, T + 2);
    await s.countCloud({ fallback: 'timeout' }, T + 3);
    expect(await s.stats(T + 4)).toEqual({ since: new Date(T), selfhosted: 1, cloud: 3, fallbacks: 2, byReason: { timeout: 2 } });
    await s.forget('ep_x');
    expect((await s.runtime(['ep_x'], T)).get('ep_x')).toMatchObject({ health: 'unknown', lastError: null, load: 0 });
  });

  it('chooses by availability and rank: freshly unhealthy, full and open endpoints out; least relative load, then latency, then order; tried last', async () => {
    const s = make();
    const c = (id: string, maxConcurrency = 4, tried = false) => ({ id, maxConcurrency, tried });
    const best = async (candidates: Array<{ id: string; maxConcurrency: number; tried: boolean }>, now = T) => {
      const claim = await s.claimBest({ candidates, now, leaseMs: LEASE, healthTtlMs: HEALTH_TTL });
      if (!('lease' in claim)) return claim.refused;
      await s.release(claim.lease);
      return claim.lease.endpointId;
    };
    // Unmeasured and idle alike: the order given decides.
    expect(await best([c('ep_r1'), c('ep_r2')])).toBe('ep_r1');
    expect(await best([c('ep_r2'), c('ep_r1')])).toBe('ep_r2');
    // Relative load: 1 of 4 beats 1 of 2.
    await slotOn(s, 'ep_r1', T);
    await slotOn(s, 'ep_r2', T);
    expect(await best([c('ep_r2', 2), c('ep_r1', 4)])).toBe('ep_r1');
    // Equal load: the lower average latency (kept exactly alike by both stores).
    await s.succeeded(await slotOn(s, 'ep_r6', T), 333, T);
    await s.succeeded(await slotOn(s, 'ep_r6', T), 777, T);
    expect((await s.runtime(['ep_r6'], T)).get('ep_r6')!.avgLatencyMs).toBe(333 * 0.8 + 777 * 0.2);
    await s.succeeded(await slotOn(s, 'ep_r3', T), 900, T);
    await s.succeeded(await slotOn(s, 'ep_r4', T), 100, T);
    expect(await best([c('ep_r3'), c('ep_r4')])).toBe('ep_r4');
    // Already tried by this job: last, but still taken when it is the only one left.
    expect(await best([c('ep_r4', 4, true), c('ep_r3')])).toBe('ep_r3');
    expect(await best([c('ep_r4', 4, true)])).toBe('ep_r4');
    // A fresh unhealthy probe keeps it out; an old one does not.
    await s.recordHealth('ep_r4', 'unhealthy', 'probe answered 503', T);
    expect(await best([c('ep_r4'), c('ep_r3')])).toBe('ep_r3');
    expect(await best([c('ep_r4')], T + HEALTH_TTL - 1)).toBe('none');
    expect(await best([c('ep_r4')], T + HEALTH_TTL)).toBe('ep_r4');
    // Full, and open: none.
    expect(await best([c('ep_r1', 1)])).toBe('none');
    for (let i = 0; i < POLICY.threshold; i++) await s.failed(await slotOn(s, 'ep_r5', T), 'down', true, T, POLICY);
    expect(await best([c('ep_r5'), c('ep_r1', 1)])).toBe('none');
    expect(await best([])).toBe('none');
  });

  it('acts only under the settings version it was planned with, when given one', async () => {
    const s = make();
    const version = await s.settingsVersion();
    const candidates = [{ id: 'ep_v', maxConcurrency: 2, tried: false }];
    const claim = await s.claimBest({ candidates, version, now: T, leaseMs: LEASE, healthTtlMs: HEALTH_TTL });
    expect('lease' in claim).toBe(true);
    await s.bumpSettingsVersion();
    expect(await s.settingsVersion()).not.toEqual(version);
    expect(await s.claimBest({ candidates, version, now: T, leaseMs: LEASE, healthTtlMs: HEALTH_TTL })).toEqual({ refused: 'stale' });
    expect(await s.countCloud({ fallback: null }, T, version)).toBe('stale');
    expect((await s.stats(T)).cloud).toBe(0);
    // Refused as stale, nothing was taken: the one slot left is still there.
    expect((await s.runtime(['ep_v'], T)).get('ep_v')!.load).toBe(1);
    expect(await s.countCloud({ fallback: null }, T, await s.settingsVersion())).toBe('counted');
    expect('lease' in (await s.claimBest({ candidates, now: T, leaseMs: LEASE, healthTtlMs: HEALTH_TTL }))).toBe(true);
  });
});
