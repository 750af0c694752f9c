import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../../config/index.js';
import { RedisConnections } from '../../platform/redis/redis.module.js';
import { CharactersModule } from '../characters/index.js';
import { LinksController } from './api/links.controller.js';
import { RedirectController } from './api/redirect.controller.js';
import { RevenueController } from './api/revenue.controller.js';
import { ClickFlushLoop } from './application/click-flush.js';
import { LinkTargets } from './application/link-targets.js';
import { LinksService } from './application/links.service.js';
import { MonetizationFacade } from './application/monetization.facade.js';
import { ClickStore } from './application/ports/click-store.js';
import { Redirects } from './application/redirects.js';
import { RevenueService } from './application/revenue.service.js';
import { ClicksRepository } from './infrastructure/clicks.repository.js';
import { LinksRepository } from './infrastructure/links.repository.js';
import { MemoryClickStore } from './infrastructure/memory-click-store.js';
import { MonetizationDataContributor } from './infrastructure/monetization-data.contributor.js';
import { AffiliateLinkEntity, RevenueEntryEntity } from './infrastructure/monetization.entities.js';
import { RedisClickStore } from './infrastructure/redis-click-store.js';
import { RevenueRepository } from './infrastructure/revenue.repository.js';

/** Clicks are counted in Redis when it is configured (every process shares them), else in this process. */
function clickStore(redis: RedisConnections, config: AppConfig): ClickStore {
  return redis.client ? new RedisClickStore(redis.client, config.redisPrefix) : new MemoryClickStore();
}

/**
 * Monetization (docs/monetization.md): affiliate links and their public redirect, click counting
 * (Redis or memory, flushed to PostgreSQL by the click flush loop) and revenue entries.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AffiliateLinkEntity, RevenueEntryEntity]), CharactersModule],
  controllers: [LinksController, RevenueController, RedirectController],
  providers: [
    LinksRepository, RevenueRepository, ClicksRepository, MonetizationDataContributor,
    LinkTargets, LinksService, RevenueService, Redirects, ClickFlushLoop, MonetizationFacade,
    { provide: ClickStore, useFactory: clickStore, inject: [RedisConnections, AppConfig] },
  ],
  exports: [MonetizationFacade],
})
export class MonetizationModule {}
