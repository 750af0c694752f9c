import { describe, expect, it } from '@jest/globals';
import { parseDuration, parseWebhooksSettings } from './webhooks.settings.js';

describe('webhook settings', () => {
  it('defaults to the documented schedule, 3 days, 4 per endpoint, 10 s, 24 h overlap, workers only', () => {
    expect(parseWebhooksSettings({})).toMatchObject({
      deliveryInApi: false,
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000],
      disableAfterMs: 3 * 86_400_000,
      concurrencyPerEndpoint: 4,
      timeoutMs: 10_000,
      rotationOverlapMs: 86_400_000,
    });
  });

  it('reads short schedules for tests', () => {
    const s = parseWebhooksSettings({ WEBHOOK_RETRY_SCHEDULE: '200ms, 400ms', WEBHOOK_DISABLE_AFTER: '2s', WEBHOOK_DELIVERY_IN_API: 'true' });
    expect(s.retryScheduleMs).toEqual([200, 400]);
    expect(s.disableAfterMs).toBe(2_000);
    expect(s.deliveryInApi).toBe(true);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('3d')).toBe(259_200_000);
    expect(parseDuration('250')).toBe(250);
    expect(parseDuration('soon')).toBeUndefined();
  });

  it('refuses a bad value with a line naming the setting', () => {
    expect(() => parseWebhooksSettings({ WEBHOOK_RETRY_SCHEDULE: '5s,,5m' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => parseWebhooksSettings({ WEBHOOK_RETRY_SCHEDULE: '1ms' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => parseWebhooksSettings({ WEBHOOK_DISABLE_AFTER: 'never' })).toThrow(/WEBHOOK_DISABLE_AFTER/);
    expect(() => parseWebhooksSettings({ WEBHOOK_CONCURRENCY_PER_ENDPOINT: '0' })).toThrow(/WEBHOOK_CONCURRENCY_PER_ENDPOINT/);
    expect(() => parseWebhooksSettings({ WEBHOOK_DELIVERY_IN_API: 'yes' })).toThrow(/WEBHOOK_DELIVERY_IN_API/);
    expect(() => parseWebhooksSettings({ WEBHOOK_TIMEOUT: '30s', WEBHOOK_LEASE: '20s' })).toThrow(/WEBHOOK_LEASE must be longer/);
  });
});
