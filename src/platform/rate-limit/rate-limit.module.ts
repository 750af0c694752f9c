import { Global, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig } from '../../config/index.js';
import { RedisConnections } from '../redis/redis.module.js';
import { Budgets } from './budgets.js';
import { CountedCalls } from './counted-calls.js';
import { CounterStore, MemoryCounterStore, RedisCounterStore } from './counter-store.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { RateLimiter } from './rate-limiter.js';
import { throttlerOptions } from './throttlers.js';

export const COUNTER_STORE = Symbol('CounterStore');

/** The counters: shared through Redis when it is configured, else in this process. */
@Module({
  providers: [
    {
      provide: COUNTER_STORE,
      inject: [RedisConnections, AppConfig],
      useFactory: (redis: RedisConnections, config: AppConfig): CounterStore =>
        redis.client ? new RedisCounterStore(redis.client, config.redisPrefix) : new MemoryCounterStore(),
    },
  ],
  exports: [COUNTER_STORE],
})
class CounterStoreModule {}

/** Request limits through @nestjs/throttler (`RateLimitGuard`), and the access stamps, sign-in counters and budgets beside them. */
@Global()
@Module({
  imports: [
    CounterStoreModule,
    ThrottlerModule.forRootAsync({ imports: [CounterStoreModule], inject: [AppConfig, COUNTER_STORE], useFactory: throttlerOptions }),
  ],
  providers: [
    {
      provide: RateLimiter,
      inject: [AppConfig, COUNTER_STORE],
      useFactory: (config: AppConfig, store: CounterStore) => new RateLimiter(config, store),
    },
    { provide: Budgets, inject: [COUNTER_STORE], useFactory: (store: CounterStore) => new Budgets(store) },
    RateLimitGuard,
    CountedCalls,
  ],
  exports: [RateLimiter, Budgets, RateLimitGuard, CountedCalls],
})
export class RateLimitModule {}
