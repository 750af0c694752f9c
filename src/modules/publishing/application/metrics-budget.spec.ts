import { describe, expect, it } from '@jest/globals';
import { MemoryCounterStore } from '../../../platform/rate-limit/counter-store.js';
import { MetricsBudget, QUOTA_RESERVES, type QuotaReserve } from './metrics-budget.js';
import { PublishFailure } from './ports/platform-client.js';

const reserves = (twitter: QuotaReserve) => ({ ...QUOTA_RESERVES, twitter });

async function refusal(promise: Promise<unknown>): Promise<PublishFailure> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(PublishFailure);
  return err as PublishFailure;
}

describe('MetricsBudget', () => {
  it('lets metric reads spend only their share of the window, then answers when the window resets', async () => {
    let now = Date.UTC(2026, 0, 1, 12, 0, 0);
    const budget = new MetricsBudget(new MemoryCounterStore(), reserves({ windowSeconds: 900, quota: 10, metricsShare: 0.5 }), () => now);
    for (let i = 0; i < 5; i += 1) await budget.spend('twitter');

    now += 60_000;
    const err = await refusal(budget.spend('twitter'));

    expect(err).toMatchObject({ code: 'rate_limited', retryAfterMs: 840_000 });
    await budget.spend('youtube');
    now += 840_000;
    await expect(budget.spend('twitter')).resolves.toBeUndefined();
  });

  it('shares the count between instances that share the store', async () => {
    const store = new MemoryCounterStore();
    const one = new MetricsBudget(store, reserves({ windowSeconds: 900, quota: 4, metricsShare: 0.5 }));
    const two = new MetricsBudget(store, reserves({ windowSeconds: 900, quota: 4, metricsShare: 0.5 }));
    await one.spend('twitter');
    await two.spend('twitter');
    expect((await refusal(one.spend('twitter'))).code).toBe('rate_limited');
  });

  it('stops every metric read of a platform after a 429, for that platform only', async () => {
    const budget = new MetricsBudget(new MemoryCounterStore());
    await budget.pause('tiktok', 30_000);

    expect(await refusal(budget.spend('tiktok'))).toMatchObject({ code: 'rate_limited' });
    await expect(budget.spend('pinterest')).resolves.toBeUndefined();
  });

  it('keeps at least half of every platform window for publishing', () => {
    for (const reserve of Object.values(QUOTA_RESERVES)) expect(reserve.metricsShare).toBeLessThanOrEqual(0.5);
  });
});
