import { Global, Module } from '@nestjs/common';
import { RedisConnections } from './redis-connections.js';
import { Wakeups } from './wakeups.js';

export { REDIS_COMMAND_TIMEOUT_MS, RedisConnections, reconnectDelay, redisOptions } from './redis-connections.js';
export { WAKEUP_CHANNEL, Wakeups } from './wakeups.js';

@Global()
@Module({ providers: [RedisConnections, Wakeups], exports: [RedisConnections, Wakeups] })
export class RedisModule {}
