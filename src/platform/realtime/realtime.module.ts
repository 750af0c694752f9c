import { DynamicModule, Global, Module, type Provider } from '@nestjs/common';
import type { ProcessRole } from '../../core/index.js';
import { AppConfig } from '../../config/index.js';
import { RedisConnections } from '../redis/redis.module.js';
import { InProcessRealtimeBus } from './in-process-bus.js';
import { RealtimeGateway } from './realtime.gateway.js';
import { RealtimeBus, RealtimePublisher } from './realtime.types.js';
import { RedisRealtimeBus } from './redis-bus.js';

function createBus(redis: RedisConnections, config: AppConfig): RealtimeBus {
  if (!redis.client) return new InProcessRealtimeBus();
  return new RedisRealtimeBus(redis.client, () => redis.create('realtime-subscriber', { subscriber: true }), config.redisPrefix);
}

/**
 * Real-time events. Every role publishes (`RealtimePublisher`); only the API role holds sockets,
 * so only it runs the gateway and subscribes to the fan-out.
 */
@Global()
@Module({})
export class RealtimeModule {
  static forRoot(role: ProcessRole): DynamicModule {
    const providers: Provider[] = [
      { provide: RealtimeBus, inject: [RedisConnections, AppConfig], useFactory: createBus },
      { provide: RealtimePublisher, useExisting: RealtimeBus },
    ];
    if (role === 'api') providers.push(RealtimeGateway);
    return { module: RealtimeModule, providers, exports: [RealtimePublisher, RealtimeBus] };
  }
}
