import { describe, expect, it } from '@jest/globals';
import { CLOSED } from './circuit.js';
import { bucketOf, currentHealth, isAvailable, nextAverage, rankEndpoints, serves, takesSelfHosted, type EndpointState } from './routing-rules.js';

const T = 1_000_000;
const ep = (id: string, over: Partial<EndpointState> = {}): EndpointState => ({
  id, maxConcurrency: 4, tried: false, health: 'unknown', load: 0, avgLatencyMs: null, circuit: CLOSED, ...over,
});

describe('routing rules', () => {
  it('buckets a job id deterministically, spread over 0-99', () => {
    expect(bucketOf('job_01ABC')).toBe(bucketOf('job_01ABC'));
    const buckets = Array.from({ length: 10_000 }, (_, i) => bucketOf(`job_${i}`));
    expect(Math.min(...buckets)).toBe(0);
    expect(Math.max(...buckets)).toBe(99);
    const under30 = buckets.filter((b) => b < 30).length;
    expect(under30).toBeGreaterThan(2_800);
    expect(under30).toBeLessThan(3_200);
  });

  it('takes none at 0 %, all at 100 %, and exactly the low buckets between', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `job_${i}`);
    expect(ids.filter((id) => takesSelfHosted(id, 0))).toEqual([]);
    expect(ids.filter((id) => takesSelfHosted(id, 100))).toEqual(ids);
    expect(ids.filter((id) => takesSelfHosted(id, 30))).toEqual(ids.filter((id) => bucketOf(id) < 30));
    expect(ids.filter((id) => takesSelfHosted(id, 12.5))).toEqual(ids.filter((id) => bucketOf(id) <= 12));
  });

  it('an unhealthy answer counts only while fresh', () => {
    expect(currentHealth('unhealthy', T, T + 29_999, 30_000)).toBe('unhealthy');
    expect(currentHealth('unhealthy', T, T + 30_000, 30_000)).toBe('unknown');
    expect(currentHealth('healthy', null, T, 30_000)).toBe('unknown');
  });

  it('serves a job only when active and capable', () => {
    const both = ['text_to_image', 'image_to_image'] as const;
    expect(serves({ status: 'active', capabilities: both }, 'image_to_image')).toBe(true);
    expect(serves({ status: 'disabled', capabilities: both }, 'text_to_image')).toBe(false);
    expect(serves({ status: 'active', capabilities: ['text_to_image'] }, 'image_to_image')).toBe(false);
  });

  it('is available only when not unhealthy, below its limit and not open', () => {
    expect(isAvailable(ep('a'), T)).toBe(true);
    expect(isAvailable(ep('a', { health: 'healthy' }), T)).toBe(true);
    expect(isAvailable(ep('a', { health: 'unhealthy' }), T)).toBe(false);
    expect(isAvailable(ep('a', { load: 4 }), T)).toBe(false);
    expect(isAvailable(ep('a', { load: 3 }), T)).toBe(true);
    expect(isAvailable(ep('a', { circuit: { ...CLOSED, state: 'open', retryAt: T + 1 } }), T)).toBe(false);
    expect(isAvailable(ep('a', { circuit: { ...CLOSED, state: 'open', retryAt: T } }), T)).toBe(true);
    expect(isAvailable(ep('a', { circuit: { ...CLOSED, state: 'half_open', trialUntil: T + 1 } }), T)).toBe(false);
  });

  it('ranks by relative load, then latency (unmeasured first), then the order given, and puts endpoints already tried last', () => {
    const ranked = rankEndpoints(
      [ep('busy', { load: 2, maxConcurrency: 4 }), ep('slow', { load: 1, maxConcurrency: 8, avgLatencyMs: 900 }), ep('fast', { load: 1, maxConcurrency: 8, avgLatencyMs: 100 }), ep('new', { load: 0 }), ep('full', { load: 4 })],
      T,
    );
    expect(ranked.map((e) => e.id)).toEqual(['new', 'fast', 'slow', 'busy']);
    expect(rankEndpoints([ep('a', { tried: true }), ep('b', { load: 3 })], T).map((e) => e.id)).toEqual(['b', 'a']);
    expect(rankEndpoints([ep('z'), ep('y'), ep('x')], T).map((e) => e.id)).toEqual(['z', 'y', 'x']);
  });

  it('averages latency with the newest sample weighted 0.2', () => {
    expect(nextAverage(null, 500)).toBe(500);
    expect(nextAverage(500, 1000)).toBe(600);
  });
});
