import { EventEmitter } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import type { RedisConnections } from './redis-connections.js';
import { WAKEUP_CHANNEL, WAKEUP_DELAY_MS, Wakeups } from './wakeups.js';

/** Redis as the wake-ups see it: what the main connection published, and subscribers that can receive. */
function fakeRedis(enabled = true) {
  const published: Array<[string, string]> = [];
  const subscribers: EventEmitter[] = [];
  const subscribed: string[] = [];
  const connections = {
    enabled,
    client: enabled ? { publish: async (channel: string, message: string) => void published.push([channel, message]) } : null,
    create: () => {
      const sub = Object.assign(new EventEmitter(), { subscribe: async (channel: string) => void subscribed.push(channel) });
      subscribers.push(sub);
      return sub;
    },
  } as unknown as RedisConnections;
  return { connections, published, subscribers, subscribed };
}

const afterDelay = () => new Promise((resolve) => setTimeout(resolve, WAKEUP_DELAY_MS + 15));

describe('Wakeups', () => {
  it('wakes this process\'s listeners a moment after a signal, once for signals in between, and publishes nothing', async () => {
    const redis = fakeRedis();
    const wakeups = new Wakeups(redis.connections);
    let woken = 0;
    wakeups.on('outbox', () => (woken += 1));
    wakeups.signal('outbox');
    wakeups.signal('outbox');
    expect(woken).toBe(0);
    await afterDelay();
    expect(woken).toBe(1);
    expect(redis.published).toEqual([]);
  });

  it('sends a signal nobody here listens to over Redis', async () => {
    const redis = fakeRedis();
    new Wakeups(redis.connections).signal('webhook-deliveries');
    await afterDelay();
    expect(redis.published).toEqual([[WAKEUP_CHANNEL, 'webhook-deliveries']]);
  });

  it('wakes the listeners of the name another process published, and only those', async () => {
    const redis = fakeRedis();
    const wakeups = new Wakeups(redis.connections);
    const woken: string[] = [];
    wakeups.on('outbox', () => woken.push('outbox'));
    wakeups.on('webhook-deliveries', () => woken.push('deliveries'));
    expect([redis.subscribers.length, redis.subscribed]).toEqual([1, [WAKEUP_CHANNEL]]);
    redis.subscribers[0].emit('message', WAKEUP_CHANNEL, 'webhook-deliveries');
    expect(woken).toEqual(['deliveries']);
  });

  it('stays in process without Redis (the embedded mode)', async () => {
    const redis = fakeRedis(false);
    const wakeups = new Wakeups(redis.connections);
    let woken = 0;
    wakeups.on('outbox', () => (woken += 1));
    wakeups.signal('outbox');
    wakeups.signal('nobody');
    await afterDelay();
    expect([woken, redis.subscribers.length]).toEqual([1, 0]);
  });
});
