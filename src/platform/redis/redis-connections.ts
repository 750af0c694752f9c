import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Redis, type RedisOptions } from 'ioredis';
import { AppConfig } from '../../config/index.js';
import { outages } from '../health/outages.js';

/** A command on a request path gives up after this long (a Redis that stopped answering). */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

/** Reconnect delay after the nth failed attempt: quick at first, then once a second. */
export function reconnectDelay(attempt: number): number {
  return Math.min(attempt * 100, 1_000);
}

/**
 * The options of one connection. Command connections fail fast once they have connected: no
 * offline queue (a command while Redis is away rejects at once instead of waiting for the
 * reconnection, which held every request 1.5-11.6 s in an outage), one retry, a command timeout.
 * Before the first connection they queue, so a command issued during boot waits for it. A
 * subscriber keeps its queue and retries: it only re-subscribes, on no request's path.
 */
export function redisOptions(name: string, subscriber: boolean): RedisOptions {
  return {
    connectionName: `ps-${name}`,
    enableReadyCheck: true,
    enableAutoPipelining: name === 'main',
    retryStrategy: reconnectDelay,
    ...(subscriber ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 1, commandTimeout: REDIS_COMMAND_TIMEOUT_MS }),
  };
}

/** Redis connections when REDIS_URL is set; `null` everywhere means "run in process". */
@Injectable()
export class RedisConnections implements OnApplicationShutdown {
  private readonly clients: Redis[] = [];
  readonly client: Redis | null;

  constructor(private readonly config: AppConfig) {
    this.client = config.redisUrl ? this.create('main') : null;
    if (this.client) {
      const main = this.client;
      outages.register('redis', () => main.ping(), Number(new URL(config.redisUrl!).port || 6379));
    }
  }

  get enabled(): boolean {
    return this.client !== null;
  }

  /**
   * A new connection (subscribers need their own: `subscriber`). The main one pipelines
   * automatically: the commands of concurrent requests issued in one tick (each request's
   * rate-limit count) leave in one write, which cut Redis's CPU per request by more than half in the
   * foundation bench (42 → 16 µs). Its errors go to the outage log (one JSON line per outage), never
   * to ioredis's own multi-line "Unhandled error event".
   */
  create(name: string, opts: { subscriber?: boolean } = {}): Redis {
    if (!this.config.redisUrl) throw new Error('Redis is not configured');
    const subscriber = opts.subscriber ?? false;
    const client = new Redis(this.config.redisUrl, redisOptions(name, subscriber));
    client.on('error', (err: unknown) => outages.report(err, 'redis'));
    // The outage ends when the main connection's probe answers again, not at any connection's `ready`.
    client.on('ready', () => {
      if (!subscriber) client.options.enableOfflineQueue = false;
    });
    this.clients.push(client);
    return client;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.quit().catch(() => c.disconnect())));
  }
}
