import { Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppConfig } from '../../config/index.js';
import { RedisConnections } from './redis-connections.js';

/** The Redis channel wake-ups travel on (after REDIS_PREFIX); a message is the name of the loop to wake. */
export const WAKEUP_CHANNEL = 'wakeups';

/** How long a signal waits before it wakes anyone: signals in between coalesce into one. */
export const WAKEUP_DELAY_MS = 25;

/**
 * Wakes polling loops (`outbox`, `webhook-deliveries`) when work was committed for them, in every
 * process that runs them: with Redis a signal is published and every process listening to the name
 * wakes, this one included (their claims, `SKIP LOCKED`, share the work); without Redis (the
 * embedded mode) it stays in this process. Signal once the work is committed (`afterCommit`).
 * Signals to one name within WAKEUP_DELAY_MS coalesce into one. A lost signal costs one poll
 * interval, never work.
 */
@Injectable()
export class Wakeups {
  private readonly logger = new Logger('Wakeups');
  private readonly listeners = new Map<string, Array<() => void>>();
  private readonly pending = new Set<string>();
  private readonly channel: string;
  private subscriber?: Redis;

  constructor(
    private readonly redis: RedisConnections,
    config: AppConfig,
  ) {
    this.channel = `${config.redisPrefix}:${WAKEUP_CHANNEL}`;
  }

  /** Runs `listener` when `name` is signalled in this process or, with Redis, in any other. */
  on(name: string, listener: () => void): void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
    if (this.redis.enabled && !this.subscriber) this.subscribe();
  }

  /** Wakes the listeners of `name` everywhere in WAKEUP_DELAY_MS. */
  signal(name: string): void {
    if (this.pending.has(name)) return;
    this.pending.add(name);
    setTimeout(() => {
      this.pending.delete(name);
      this.deliver(name);
    }, WAKEUP_DELAY_MS).unref();
  }

  private deliver(name: string): void {
    if (this.redis.client) this.redis.client.publish(this.channel, name).catch(() => undefined); // an outage is logged by the connection; the poll covers it
    else this.wake(name);
  }

  private wake(name: string): void {
    this.listeners.get(name)?.forEach((listener) => listener());
  }

  private subscribe(): void {
    const subscriber = this.redis.create('wakeups', { subscriber: true });
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, name: string) => {
      if (channel === this.channel) this.wake(name);
    });
    subscriber.subscribe(this.channel).catch((err: unknown) => this.logger.warn({ msg: 'wake-up channel not subscribed; loops poll', err: String(err) }));
  }
}
