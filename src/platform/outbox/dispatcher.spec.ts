import { describe, expect, it } from '@jest/globals';
import type { OutboxEvent } from '../../core/index.js';
import { attemptDelivery, outcomeOf } from './dispatcher.js';
import type { ClaimedEvent } from './outbox-store.js';
import { OutboxSubscribers, PermanentDeliveryFailure, type DeliveryAttempt } from './subscribers.js';

const policy = { baseMs: 1_000, maxMs: 60_000, maxAttempts: 3 };

function claimed(overrides: Partial<ClaimedEvent> = {}): ClaimedEvent {
  return {
    id: 'evt_1', type: 'account.password_changed', workspaceId: null, payload: { userId: 'user_1', email: 'a@b.test' },
    secretSealed: null, occurredAt: new Date(0), attempts: 1, deliveredTo: [], claimedUntil: new Date(1000), ...overrides,
  };
}

interface Call { name: string; event: OutboxEvent; secret: string | undefined; attempt: DeliveryAttempt }

function registry(behaviour: Record<string, () => Promise<void>>, calls: Call[] = []): OutboxSubscribers {
  const subs = new OutboxSubscribers();
  for (const [name, run] of Object.entries(behaviour)) {
    subs.register({ name, types: ['account.password_changed'], handle: async (event, secret, attempt) => { calls.push({ name, event, secret, attempt }); await run(); } });
  }
  return subs;
}

const ok = async () => undefined;
const boom = async () => { throw new Error('smtp down'); };

describe('outbox subscribers', () => {
  it('refuses two subscribers of one name (the boot stops)', () => {
    const subs = registry({ mail: ok });
    expect(() => subs.register({ name: 'mail', types: ['account.password_changed'], handle: ok })).toThrow(/two outbox subscribers are named "mail"/);
  });

  it('answers only the subscribers of a type', () => {
    const subs = registry({ mail: ok });
    subs.register({ name: 'webhooks', types: ['account.export_ready'], handle: ok });
    expect(subs.of('account.password_changed').map((s) => s.name)).toEqual(['mail']);
    expect(subs.of('account.export_ready').map((s) => s.name)).toEqual(['webhooks']);
    expect(subs.of('nothing')).toEqual([]);
  });
});

describe('one delivery attempt', () => {
  it('runs every subscriber, keeps those that succeeded and retries only those that failed', async () => {
    const calls: Call[] = [];
    const subs = registry({ mail: ok, webhooks: boom, audit: ok }, calls);
    const result = await attemptDelivery(subs, claimed(), () => undefined, false, 1_000);
    expect(result.delivered.sort()).toEqual(['audit', 'mail']);
    expect(result.retryable).toEqual(['webhooks']);
    expect(result.errors).toEqual(['webhooks: smtp down']);
    expect(calls).toHaveLength(3);
    expect(outcomeOf(policy, claimed(), result, 0)).toEqual({ kind: 'retry', delivered: result.delivered, delayMs: 1_000, error: 'webhooks: smtp down' });
  });

  it('skips the subscribers already done with the event on a retry', async () => {
    const calls: Call[] = [];
    const subs = registry({ mail: ok, webhooks: ok }, calls);
    const result = await attemptDelivery(subs, claimed({ deliveredTo: ['mail'], attempts: 2 }), () => undefined, false, 1_000);
    expect(calls.map((c) => c.name)).toEqual(['webhooks']);
    expect(outcomeOf(policy, claimed({ attempts: 2 }), result, 0)).toEqual({ kind: 'done', delivered: ['webhooks'], error: null });
  });

  it('hands the opened secret and the attempt to the subscriber, not inside the event', async () => {
    const calls: Call[] = [];
    const subs = registry({ mail: ok }, calls);
    await attemptDelivery(subs, claimed({ secretSealed: 'sealed', attempts: 3 }), () => 'the-token', true, 1_000);
    expect(calls[0].secret).toBe('the-token');
    expect(calls[0].attempt).toEqual({ attempt: 3, last: true });
    expect(JSON.stringify(calls[0].event)).not.toContain('the-token');
  });

  it('counts a permanent failure as finished for its subscriber, with its error kept', async () => {
    const subs = registry({ mail: async () => { throw new PermanentDeliveryFailure('no token'); } });
    const result = await attemptDelivery(subs, claimed(), () => undefined, false, 1_000);
    expect(result).toEqual({ delivered: ['mail'], retryable: [], errors: ['mail: no token'] });
    expect(outcomeOf(policy, claimed(), result)).toEqual({ kind: 'done', delivered: ['mail'], error: 'mail: no token' });
  });

  it('gives up after the last attempt still fails', async () => {
    const subs = registry({ mail: boom });
    const result = await attemptDelivery(subs, claimed({ attempts: 3 }), () => undefined, true, 1_000);
    expect(outcomeOf(policy, claimed({ attempts: 3 }), result)).toEqual({ kind: 'give_up', delivered: [], error: 'mail: smtp down' });
  });

  it('fails a subscriber that hangs past the time limit (to be retried)', async () => {
    const subs = registry({ mail: () => new Promise<void>(() => undefined) });
    const result = await attemptDelivery(subs, claimed(), () => undefined, false, 20);
    expect(result.retryable).toEqual(['mail']);
  });

  it('finishes an event nobody subscribes to, and one whose secret cannot be opened', async () => {
    const none = await attemptDelivery(new OutboxSubscribers(), claimed(), () => undefined, false, 1_000);
    expect(outcomeOf(policy, claimed(), none)).toEqual({ kind: 'done', delivered: [], error: null });
    const calls: Call[] = [];
    const unreadable = await attemptDelivery(registry({ mail: ok }, calls), claimed({ secretSealed: 'x' }), () => { throw new Error('bad key'); }, false, 1_000);
    expect(calls).toHaveLength(0);
    expect(outcomeOf(policy, claimed(), unreadable).kind).toBe('done');
    expect(unreadable.errors[0]).toContain('secret unreadable');
  });
});
