import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RouterState } from '../../application/router-state.js';
import { MemoryRouterState } from './memory-router-state.js';
import { RedisRouterState } from './redis-router-state.js';

const POLICY = { threshold: 3, resetMs: 1_000 };
const LEASE = 500;
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

  it('hands out at most max slots, and a released or lapsed one again', async () => {
    const s = make();
    const a = await s.claim('ep_a', 2, T, LEASE);
    const b = await s.claim('ep_a', 2, T, LEASE);
    expect('lease' in a && 'lease' in b).toBe(true);
    expect(await s.claim('ep_a', 2, T, LEASE)).toEqual({ refused: 'full' });
    expect((await s.runtime(['ep_a'], T)).get('ep_a')!.load).toBe(2);
    if ('lease' in a) await s.release(a.lease);
    expect('lease' in (await s.claim('ep_a', 2, T, LEASE))).toBe(true);
    // Nobody releases the two slots held now (their holders died): at the end of their lease both lapse.
    expect(await s.claim('ep_a', 2, T + LEASE - 1, LEASE)).toEqual({ refused: 'full' });
    expect('lease' in (await s.claim('ep_a', 2, T + LEASE, LEASE))).toBe(true);
    expect((await s.runtime(['ep_a'], T + LEASE)).get('ep_a')!.load).toBe(1);
  });

  it('settling a request, either way, frees its slot', async () => {
    const s = make();
    const a = await s.claim('ep_f', 2, T, LEASE);
    const b = await s.claim('ep_f', 2, T, LEASE);
    if (!('lease' in a) || !('lease' in b)) throw new Error('no slot');
    await s.succeeded(a.lease, 10, T);
    await s.failed(b.lease, 'x', true, T, POLICY);
    expect((await s.runtime(['ep_f'], T)).get('ep_f')!.load).toBe(0);
  });

  it('a renewed lease outlives its first term', async () => {
    const s = make();
    const a = await s.claim('ep_r', 1, T, LEASE);
    if (!('lease' in a)) throw new Error('no slot');
    await s.renew(a.lease, T + LEASE - 1, LEASE);
    expect(await s.claim('ep_r', 1, T + LEASE + 10, LEASE)).toEqual({ refused: 'full' });
  });

  it('opens after the threshold of counted failures; a bad request does not count', async () => {
    const s = make();
    const fail = async (counted: boolean, at = T) => {
      const c = await s.claim('ep_c', 8, at, LEASE);
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
    expect(await s.claim('ep_c', 8, T + POLICY.resetMs - 1, LEASE)).toEqual({ refused: 'circuit_open' });
  });

  it('a success resets the count of consecutive failures', async () => {
    const s = make();
    for (let i = 0; i < 2; i++) {
      const c = await s.claim('ep_s', 8, T, LEASE);
      if ('lease' in c) await s.failed(c.lease, 'x', true, T, POLICY);
    }
    const ok = await s.claim('ep_s', 8, T, LEASE);
    if ('lease' in ok) expect(await s.succeeded(ok.lease, 100, T)).toBe('closed');
    const c = await s.claim('ep_s', 8, T, LEASE);
    if ('lease' in c) expect(await s.failed(c.lease, 'x', true, T, POLICY)).toBe('closed');
    const rt = (await s.runtime(['ep_s'], T)).get('ep_s')!;
    expect(rt.circuit.consecutiveFailures).toBe(1);
    expect(rt.avgLatencyMs).toBe(100);
  });

  it('after the reset window lets one trial through; its success closes, its failure reopens', async () => {
    const s = make();
    for (let i = 0; i < 3; i++) {
      const c = await s.claim('ep_h', 8, T, LEASE);
      if ('lease' in c) await s.failed(c.lease, 'down', true, T, POLICY);
    }
    const later = T + POLICY.resetMs;
    const trial = await s.claim('ep_h', 8, later, LEASE);
    expect('lease' in trial && trial.lease.trial).toBe(true);
    expect(await s.claim('ep_h', 8, later, LEASE)).toEqual({ refused: 'circuit_open' });
    if (!('lease' in trial)) return;
    expect(await s.failed(trial.lease, 'still down', true, later, POLICY)).toBe('open');
    expect((await s.runtime(['ep_h'], later)).get('ep_h')!.circuit.retryAt).toBe(later + POLICY.resetMs);
    const second = await s.claim('ep_h', 8, later + POLICY.resetMs, LEASE);
    if (!('lease' in second)) throw new Error('no second trial');
    expect(await s.succeeded(second.lease, 50, later + POLICY.resetMs)).toBe('closed');
    expect((await s.runtime(['ep_h'], later + POLICY.resetMs)).get('ep_h')!.circuit).toMatchObject({ state: 'closed', consecutiveFailures: 0, openedAt: null });
  });

  it('a trial whose holder died is handed on when its claim lapses', async () => {
    const s = make();
    for (let i = 0; i < 3; i++) {
      const c = await s.claim('ep_d', 8, T, LEASE);
      if ('lease' in c) await s.failed(c.lease, 'down', true, T, POLICY);
    }
    const at = T + POLICY.resetMs;
    expect('lease' in (await s.claim('ep_d', 8, at, LEASE))).toBe(true);
    expect(await s.claim('ep_d', 8, at + LEASE - 1, LEASE)).toEqual({ refused: 'circuit_open' });
    const next = await s.claim('ep_d', 8, at + LEASE, LEASE);
    expect('lease' in next && next.lease.trial).toBe(true);
  });

  it('records health, counts outcomes, and forgets a deleted endpoint', async () => {
    const s = make();
    await s.recordHealth('ep_x', 'unhealthy', 'probe refused', T);
    expect((await s.runtime(['ep_x'], T)).get('ep_x')).toMatchObject({ health: 'unhealthy', healthCheckedAt: T, lastError: 'probe refused' });
    expect(await s.claimProbe('ep_x', 10_000)).toBe(true);
    expect(await s.claimProbe('ep_x', 10_000)).toBe(false);
    await s.count({ route: 'selfhosted' }, T);
    await s.count({ route: 'cloud', fallback: null }, T + 1);
    await s.count({ route: 'cloud', fallback: 'timeout' }, T + 2);
    await s.count({ route: 'cloud', fallback: 'timeout' }, T + 3);
    expect(await s.stats(T + 4)).toEqual({ since: new Date(T), selfhosted: 1, cloud: 3, fallbacks: 2, byReason: { timeout: 2 } });
    const version = await s.settingsVersion();
    await s.bumpSettingsVersion();
    expect(await s.settingsVersion()).not.toEqual(version);
    await s.forget('ep_x');
    expect((await s.runtime(['ep_x'], T)).get('ep_x')).toMatchObject({ health: 'unknown', lastError: null, load: 0 });
  });
});
