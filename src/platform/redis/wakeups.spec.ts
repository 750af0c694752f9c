import { EventEmitter } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import type { AppConfig } from '../../config/index.js';
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

const config = { redisPrefix: 'spec' } as AppConfig;
const CHANNEL = `spec:${WAKEUP_CHANNEL}`;
const afterDelay = () => new Promise((resolve) => setTimeout(resolve, WAKEUP_DELAY_MS + 15));

describe('Wakeups', () => {
  it('publishes a signal a moment later, once for signals in between, and wakes nobody directly', async () => {
    const redis = fakeRedis();
    const wakeups = new Wakeups(redis.connections, config);
    let woken = 0;
    wakeups.on('outbox', () => (woken += 1));
    wakeups.signal('outbox');
    wakeups.signal('outbox');
    expect(redis.published).toEqual([]);
    await afterDelay();
    expect([redis.published, woken]).toEqual([[[CHANNEL, 'outbox']], 0]);
  });

  it('wakes the listeners of a published name in every process, the signalling one included, and only those', async () => {
    const redis = fakeRedis();
    const wakeups = new Wakeups(redis.connections, config);
    const woken: string[] = [];
    wakeups.on('outbox', () => woken.push('outbox'));
    wakeups.on('webhook-deliveries', () => woken.push('deliveries'));
    expect([redis.subscribers.length, redis.subscribed]).toEqual([1, [CHANNEL]]);
    redis.subscribers[0].emit('message', CHANNEL, 'webhook-deliveries');
    redis.subscribers[0].emit('message', 'other:wakeups', 'outbox');
    expect(woken).toEqual(['deliveries']);
  });

  it('stays in process without Redis (the embedded mode)', async () => {
    const redis = fakeRedis(false);
    const wakeups = new Wakeups(redis.connections, config);
    let woken = 0;
    wakeups.on('outbox', () => (woken += 1));
    wakeups.signal('outbox');
    wakeups.signal('nobody');
    await afterDelay();
    expect([woken, redis.subscribers.length]).toEqual([1, 0]);
  });
});
