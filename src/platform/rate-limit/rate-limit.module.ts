import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/index.js';
import { RedisConnections } from '../redis/redis.module.js';
import { CounterStore, MemoryCounterStore, RedisCounterStore } from './counter-store.js';
import { RateLimiter } from './rate-limiter.js';

export const COUNTER_STORE = Symbol('CounterStore');

@Global()
@Module({
  providers: [
    {
      provide: COUNTER_STORE,
      inject: [RedisConnections, AppConfig],
      useFactory: (redis: RedisConnections, config: AppConfig): CounterStore =>
        redis.client ? new RedisCounterStore(redis.client, config.redisPrefix) : new MemoryCounterStore(),
    },
    {
      provide: RateLimiter,
      inject: [AppConfig, COUNTER_STORE],
      useFactory: (config: AppConfig, store: CounterStore) => new RateLimiter(config, store),
    },
  ],
  exports: [RateLimiter],
})
export class RateLimitModule {}
