import { Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisConnections } from './redis-connections.js';

/** The Redis channel wake-ups travel on; a message is the name of the loop to wake. */
export const WAKEUP_CHANNEL = 'persona:wakeups';

/** How long a signal waits before it wakes anyone: the signalling transaction commits meanwhile, and signals in between coalesce. */
export const WAKEUP_DELAY_MS = 25;

/**
 * Wakes polling loops (`outbox`, `webhooks`) when work was written for them, in this process or,
 * with Redis, in any other: an API process that queued deliveries wakes the workers that send them,
 * instead of leaving the work for their next poll. Signals to one name within WAKEUP_DELAY_MS
 * coalesce into one. A signal with a listener in this process stays here (that process does the
 * work); only one without goes over Redis, where every process listening to the name wakes and
 * their claims (`SKIP LOCKED`) share the work. A lost signal costs one poll interval, never work.
 */
@Injectable()
export class Wakeups {
  private readonly logger = new Logger('Wakeups');
  private readonly listeners = new Map<string, Array<() => void>>();
  private readonly pending = new Set<string>();
  private subscriber?: Redis;

  constructor(private readonly redis: RedisConnections) {}

  /** Runs `listener` when `name` is signalled here or, with Redis, in another process. */
  on(name: string, listener: () => void): void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
    if (this.redis.enabled && !this.subscriber) this.subscribe();
  }

  /** Wakes the listeners of `name` in WAKEUP_DELAY_MS (call it when the work's transaction is about to commit). */
  signal(name: string): void {
    if (this.pending.has(name)) return;
    this.pending.add(name);
    setTimeout(() => {
      this.pending.delete(name);
      this.deliver(name);
    }, WAKEUP_DELAY_MS).unref();
  }

  private deliver(name: string): void {
    const here = this.listeners.get(name);
    if (here) here.forEach((listener) => listener());
    else if (this.redis.client) this.redis.client.publish(WAKEUP_CHANNEL, name).catch(() => undefined); // an outage is logged by the connection; the poll covers it
  }

  private subscribe(): void {
    const subscriber = this.redis.create('wakeups', { subscriber: true });
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, name: string) => this.listeners.get(name)?.forEach((listener) => listener()));
    subscriber.subscribe(WAKEUP_CHANNEL).catch((err: unknown) => this.logger.warn({ msg: 'wake-up channel not subscribed; loops poll', err: String(err) }));
  }
}
