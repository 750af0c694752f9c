import { describe, expect, it } from '@jest/globals';
import { WEBHOOK_EVENT_TYPES } from '../../../core/index.js';
import {
  endpointUrlProblem, envelope, eventTypesProblem, failingTooLong, newSigningSecret, retryDelayMs, settleAttempt, snakeCased, subscribes, verdictOf,
} from './webhook-rules.js';

const SCHEDULE = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];

describe('the retry schedule', () => {
  it('waits each entry of the schedule ± 20 %, whatever the jitter drawn', () => {
    SCHEDULE.forEach((base, i) => {
      expect(retryDelayMs(SCHEDULE, i + 1, 0)).toBe(Math.round(base * 0.8));
      expect(retryDelayMs(SCHEDULE, i + 1, 0.5)).toBe(base);
      const top = retryDelayMs(SCHEDULE, i + 1, 0.999999)!;
      expect(top).toBeLessThanOrEqual(base * 1.2);
      expect(top).toBeGreaterThan(base * 1.19);
    });
    for (const jitter of [-3, 7, 1]) {
      const d = retryDelayMs(SCHEDULE, 1, jitter)!;
      expect(d).toBeGreaterThanOrEqual(4_000);
      expect(d).toBeLessThanOrEqual(6_000);
    }
  });

  it('is spent after one attempt more than it has waits: then the delivery fails', () => {
    expect(retryDelayMs(SCHEDULE, 6, 0.5)).toBe(36_000_000);
    expect(retryDelayMs(SCHEDULE, 7, 0.5)).toBeNull();
    expect(retryDelayMs(SCHEDULE, 0, 0.5)).toBeNull();
    expect(retryDelayMs([], 1, 0.5)).toBeNull();
  });

  it('spreads the default attempts over about 18 hours (the issue asks ~24 h at most)', () => {
    const total = SCHEDULE.reduce((a, b) => a + b, 0);
    expect(total * 1.2).toBeLessThan(24 * 3_600_000);
  });
});

describe('what an attempt comes to', () => {
  it('2xx delivered, 410 gone, anything else (3xx, 4xx, 5xx, no answer) retried', () => {
    expect([200, 201, 204, 299].map(verdictOf)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
    expect(verdictOf(410)).toBe('gone');
    expect([301, 302, 307, 308, 400, 404, 429, 500, 503, null].map(verdictOf).every((v) => v === 'retry')).toBe(true);
  });

  it('settles: delivered, endpoint disabled at once on 410, retried on the schedule, failed when it is spent', () => {
    expect(settleAttempt(204, 3, SCHEDULE, 0.5)).toEqual({ delivery: 'delivered', endpoint: 'succeeded' });
    expect(settleAttempt(410, 1, SCHEDULE, 0.5)).toEqual({ delivery: 'failed', endpoint: 'gone' });
    expect(settleAttempt(500, 1, SCHEDULE, 0.5)).toEqual({ delivery: 'retry', delayMs: 5_000, endpoint: 'failed' });
    expect(settleAttempt(307, 2, SCHEDULE, 0.5)).toEqual({ delivery: 'retry', delayMs: 300_000, endpoint: 'failed' });
    expect(settleAttempt(null, 7, SCHEDULE, 0.5)).toEqual({ delivery: 'failed', endpoint: 'failed' });
  });
});

describe('disabling a failing endpoint', () => {
  const day = 86_400_000;
  it('disables once every attempt failed for the whole period, not before, never without a streak', () => {
    const now = new Date('2030-01-04T00:00:00Z');
    expect(failingTooLong(new Date(now.getTime() - 3 * day), now, 3 * day)).toBe(true);
    expect(failingTooLong(new Date(now.getTime() - 3 * day + 1), now, 3 * day)).toBe(false);
    expect(failingTooLong(null, now, 3 * day)).toBe(false);
  });
});

describe('event types of an endpoint', () => {
  it('takes a non-empty list of known types, or ["*"] alone', () => {
    expect(eventTypesProblem(['job.completed', 'credits.low'])).toBeNull();
    expect(eventTypesProblem([...WEBHOOK_EVENT_TYPES])).toBeNull();
    expect(eventTypesProblem(['*'])).toBeNull();
    expect(eventTypesProblem([])).toMatch(/non-empty/);
    expect(eventTypesProblem(undefined)).toMatch(/non-empty/);
    expect(eventTypesProblem('job.completed')).toMatch(/non-empty/);
    expect(eventTypesProblem(['*', 'job.completed'])).toMatch(/stands alone/);
    expect(eventTypesProblem(['job.finished'])).toMatch(/unknown event type "job.finished"/);
    expect(eventTypesProblem(['webhook.test'])).toMatch(/unknown/);
    expect(eventTypesProblem(['job.failed', 'job.failed'])).toMatch(/repeat/);
    expect(eventTypesProblem([42])).toMatch(/strings/);
  });

  it('matches a subscription to an event type', () => {
    expect(subscribes(['*'], 'member.added')).toBe(true);
    expect(subscribes(['job.completed'], 'job.completed')).toBe(true);
    expect(subscribes(['job.completed'], 'job.failed')).toBe(false);
  });
});

describe('endpoint URLs', () => {
  it('takes https anywhere and http outside production', () => {
    expect(endpointUrlProblem('https://hooks.example.com/a?x=1', true)).toBeNull();
    expect(endpointUrlProblem('http://hooks.example.com/a', false)).toBeNull();
    expect(endpointUrlProblem('http://hooks.example.com/a', true)).toBe('url must use https');
  });

  it('refuses other schemes, credentials, fragments and what is not a URL', () => {
    expect(endpointUrlProblem('ftp://hooks.example.com/', false)).toBe('url must use https');
    expect(endpointUrlProblem('file:///etc/passwd', false)).toBe('url must use https');
    expect(endpointUrlProblem('https://user:pw@hooks.example.com/', true)).toBe('url must not carry credentials');
    expect(endpointUrlProblem('https://user@hooks.example.com/', true)).toBe('url must not carry credentials');
    expect(endpointUrlProblem('https://hooks.example.com/#x', true)).toBe('url must not have a fragment');
    expect(endpointUrlProblem('hooks.example.com/path', true)).toBe('url must be an absolute URL');
    expect(endpointUrlProblem('', true)).toBe('url must be an absolute URL');
    expect(endpointUrlProblem(`https://a.example/${'x'.repeat(2100)}`, true)).toMatch(/at most 2048/);
  });
});

describe('bodies', () => {
  it('wraps the resource in the event envelope', () => {
    const at = new Date('2030-01-01T00:00:00.000Z');
    expect(envelope({ id: 'evt_1', type: 'job.completed', occurredAt: at, workspaceId: 'ws_1' }, { id: 'job_1' })).toEqual({
      id: 'evt_1', type: 'job.completed', created_at: '2030-01-01T00:00:00.000Z', workspace_id: 'ws_1', data: { id: 'job_1' },
    });
  });

  it('snake-cases a payload when no renderer knows its type, deeply, leaving values alone', () => {
    expect(snakeCased({ resetsAt: null, jobType: 'image', nested: [{ userId: 'u', camelValue: 'keepMe' }] })).toEqual({
      resets_at: null, job_type: 'image', nested: [{ user_id: 'u', camel_value: 'keepMe' }],
    });
  });

  it('makes whsec_ secrets of 32 random bytes, never the same twice', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(a);
  });
});
