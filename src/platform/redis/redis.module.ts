import { Global, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { AppConfig } from '../../config/index.js';

/** Redis connections when REDIS_URL is set; `null` everywhere means "run in process". */
@Injectable()
export class RedisConnections implements OnApplicationShutdown {
  private readonly clients: Redis[] = [];
  readonly client: Redis | null;

  constructor(private readonly config: AppConfig) {
    this.client = config.redisUrl ? this.create('main') : null;
  }

  get enabled(): boolean {
    return this.client !== null;
  }

  /**
   * A new connection (subscribers need their own). The main one pipelines automatically: the commands
   * of concurrent requests issued in one tick (each request's rate-limit count) leave in one write,
   * which cut Redis's CPU per request by more than half in the foundation bench (42 → 16 µs).
   */
  create(name: string): Redis {
    if (!this.config.redisUrl) throw new Error('Redis is not configured');
    const client = new Redis(this.config.redisUrl, {
      connectionName: `ps-${name}`,
      maxRetriesPerRequest: null,
      enableReadyCheck: true,
      enableAutoPipelining: name === 'main',
    });
    this.clients.push(client);
    return client;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.quit().catch(() => c.disconnect())));
  }
}

@Global()
@Module({ providers: [RedisConnections], exports: [RedisConnections] })
export class RedisModule {}
