import { describe, expect, it } from '@jest/globals';
import { MemoryCounterStore } from '../../../platform/rate-limit/counter-store.js';
import { MetricsBudget, QUOTA_RESERVES, type QuotaReserve } from './metrics-budget.js';
import { PublishFailure } from './ports/platform-client.js';

const reserves = (twitter: Omit<QuotaReserve, 'per'>, per: QuotaReserve['per'] = 'account') => ({ ...QUOTA_RESERVES, twitter: { ...twitter, per } });

async function refusal(promise: Promise<unknown>): Promise<PublishFailure> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(PublishFailure);
  return err as PublishFailure;
}

describe('MetricsBudget', () => {
  it('lets metric reads spend only their share of the window, then answers when the window resets', async () => {
    let now = Date.UTC(2026, 0, 1, 12, 0, 0);
    const budget = new MetricsBudget(new MemoryCounterStore(), reserves({ windowSeconds: 900, quota: 10, metricsShare: 0.5 }), () => now);
    for (let i = 0; i < 5; i += 1) await budget.spend('twitter', 'acct_a');

    now += 60_000;
    const err = await refusal(budget.spend('twitter', 'acct_a'));

    expect(err).toMatchObject({ code: 'rate_limited', retryAfterMs: 840_000 });
    await budget.spend('youtube', 'acct_a');
    now += 840_000;
    await expect(budget.spend('twitter', 'acct_a')).resolves.toBeUndefined();
  });

  it('shares the count between instances that share the store', async () => {
    const store = new MemoryCounterStore();
    const one = new MetricsBudget(store, reserves({ windowSeconds: 900, quota: 4, metricsShare: 0.5 }));
    const two = new MetricsBudget(store, reserves({ windowSeconds: 900, quota: 4, metricsShare: 0.5 }));
    await one.spend('twitter', 'acct_a');
    await two.spend('twitter', 'acct_a');
    expect((await refusal(one.spend('twitter', 'acct_a'))).code).toBe('rate_limited');
  });

  it("counts each account's own quota where the platform does, and one quota for the app where it does not", async () => {
    const perAccount = new MetricsBudget(new MemoryCounterStore(), reserves({ windowSeconds: 900, quota: 2, metricsShare: 0.5 }));
    await perAccount.spend('twitter', 'acct_a');
    expect((await refusal(perAccount.spend('twitter', 'acct_a'))).code).toBe('rate_limited');
    await expect(perAccount.spend('twitter', 'acct_b')).resolves.toBeUndefined();

    const perApp = new MetricsBudget(new MemoryCounterStore(), reserves({ windowSeconds: 900, quota: 2, metricsShare: 0.5 }, 'app'));
    await perApp.spend('twitter', 'acct_a');
    expect((await refusal(perApp.spend('twitter', 'acct_b'))).code).toBe('rate_limited');
  });

  it('stops the metric reads on the quota a 429 named: the whole app, or the one account', async () => {
    const budget = new MetricsBudget(new MemoryCounterStore());
    // TikTok counts per client: every account waits.
    await budget.pause('tiktok', 'acct_a', 30_000);
    expect(await refusal(budget.spend('tiktok', 'acct_b'))).toMatchObject({ code: 'rate_limited' });
    await expect(budget.spend('pinterest', 'acct_a')).resolves.toBeUndefined();
    // Instagram counts per account: the others read on.
    await budget.pause('instagram', 'acct_a', 30_000);
    expect(await refusal(budget.spend('instagram', 'acct_a'))).toMatchObject({ code: 'rate_limited' });
    await expect(budget.spend('instagram', 'acct_b')).resolves.toBeUndefined();
  });

  it('keeps at least half of every platform window for publishing', () => {
    for (const reserve of Object.values(QUOTA_RESERVES)) expect(reserve.metricsShare).toBeLessThanOrEqual(0.5);
  });
});
