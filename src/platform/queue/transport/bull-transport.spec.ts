import { describe, expect, it } from '@jest/globals';
import { AppConfig } from '../../../config/index.js';
import { bullQueueOptions } from './bull-transport.js';
import { MAX_DELIVERIES, redeliveryDelayMs } from './job-transport.js';

const secrets = { JWT_SECRET: 'x'.repeat(32), TOKEN_ENCRYPTION_KEY: 'y'.repeat(32) };

describe('Bull queue options', () => {
  it('a message whose run rejects is delivered again with back-off instead of being dropped', () => {
    const options = bullQueueOptions('ps', { lockMs: 6_000, stalledCheckMs: 2_000 });
    expect(options.defaultJobOptions).toMatchObject({ attempts: MAX_DELIVERIES, removeOnComplete: true, removeOnFail: true });
    expect(MAX_DELIVERIES).toBeGreaterThan(1);
    const type = (options.defaultJobOptions!.backoff as { type: string }).type;
    const strategy = options.settings!.backoffStrategies![type] as (attemptsMade: number) => number;
    expect([1, 2, 3, 4, 5, 6, 40].map((n) => strategy(n))).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
  });

  it('redelivery back-off: 0.5 s doubling to 5 s; MAX_DELIVERIES of them cover minutes of database outage', () => {
    expect([1, 2, 3, 4, 5, 100].map(redeliveryDelayMs)).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000]);
    const covered = Array.from({ length: MAX_DELIVERIES - 1 }, (_, i) => redeliveryDelayMs(i + 1)).reduce((a, b) => a + b, 0);
    expect(covered).toBeGreaterThanOrEqual(120_000);
  });

  it("a dead worker's jobs are noticed within lock + 2 stalled checks, sized from the settings (default 6 s + 2 × 2 s)", () => {
    const defaults = new AppConfig(secrets).jobRecovery;
    expect(defaults).toEqual({ lockMs: 6_000, stalledCheckMs: 2_000, sweepIntervalMs: 5_000 });
    expect(bullQueueOptions('ps', defaults).settings).toMatchObject({ lockDuration: 6_000, lockRenewTime: 3_000, stalledInterval: 2_000 });
    expect(defaults.lockMs + 2 * defaults.stalledCheckMs).toBeLessThanOrEqual(10_000);
    const custom = new AppConfig({ ...secrets, JOB_LOCK_MS: '30000', JOB_SWEEP_INTERVAL_MS: '15000' }).jobRecovery;
    expect(custom).toEqual({ lockMs: 30_000, stalledCheckMs: 10_000, sweepIntervalMs: 15_000 });
    expect(new AppConfig({ ...secrets, JOB_STALLED_CHECK_MS: '2000' }).jobRecovery.stalledCheckMs).toBe(2_000);
  });
});
