import { Module, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../config/index.js';
import { IdempotencyModule } from '../../platform/idempotency/index.js';
import { createQueueTransport } from '../../platform/queue/index.js';
import { MemoryCounterStore, RedisCounterStore } from '../../platform/rate-limit/counter-store.js';
import { RedisConnections } from '../../platform/redis/redis.module.js';
import { CharactersModule } from '../characters/index.js';
import { ContentFacade, ContentModule } from '../content/index.js';
import { ContentScheduleController } from './api/content-schedule.controller.js';
import { IntegrationsController } from './api/integrations.controller.js';
import { PostEventBodies } from './api/post-event-bodies.js';
import { ScheduleController } from './api/schedule.controller.js';
import { ConnectionsService } from './application/connections.service.js';
import { Dispatcher, PUBLISH_QUEUE } from './application/dispatcher.js';
import { MetricsBudget } from './application/metrics-budget.js';
import { PlatformClients } from './application/platform-clients.js';
import { PostEvents, toScheduledPostBody } from './application/post-events.js';
import { PublishNowService } from './application/publish-now.service.js';
import { PublishingFacade } from './application/publishing.facade.js';
import { Publisher } from './application/publisher.js';
import { ScheduleService } from './application/schedule.service.js';
import { PostingHistories } from './application/posting-history.js';
import { TokenKeeper } from './application/token-keeper.js';
import { ConnectionsRepository } from './infrastructure/connections.repository.js';
import { OAuthStatesRepository } from './infrastructure/oauth-states.repository.js';
import { PublishQueueScan } from './infrastructure/publish-queue-scan.js';
import { ScheduledPostsRepository } from './infrastructure/scheduled-posts.repository.js';
import { TokenCipher } from './infrastructure/token-cipher.js';
import { PublishingDataContributor } from './infrastructure/publishing-data.contributor.js';

/**
 * Publishing: platform connections (OAuth 2, tokens sealed at rest), the schedule, and the
 * dispatcher that publishes due posts exactly once. Plugs its posts into the content calendar.
 * A character's posts go with it (foreign keys), like its content.
 */
@Module({
  imports: [IdempotencyModule, CharactersModule, ContentModule],
  controllers: [IntegrationsController, ScheduleController, ContentScheduleController],
  providers: [PublishingDataContributor,
    TokenCipher, ConnectionsRepository, OAuthStatesRepository, ScheduledPostsRepository, PublishQueueScan,
    PlatformClients, TokenKeeper, PostEvents, Publisher, ConnectionsService, ScheduleService, PublishNowService, Dispatcher, PublishingFacade, PostingHistories, PostEventBodies,
    // Metric reads' quota reserve: counted in Redis when configured, so every worker spends one budget.
    {
      provide: MetricsBudget,
      inject: [RedisConnections, AppConfig],
      useFactory: (redis: RedisConnections, config: AppConfig) => new MetricsBudget(redis.client ? new RedisCounterStore(redis.client, config.redisPrefix) : new MemoryCounterStore()),
    },
    { provide: PUBLISH_QUEUE, inject: [AppConfig], useFactory: (config: AppConfig) => createQueueTransport(config, 'publish', config.publishing.concurrency) },
  ],
  exports: [PublishingFacade, PostingHistories],
})
export class PublishingModule implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly content: ContentFacade,
    private readonly posts: ScheduledPostsRepository,
  ) {}

  onModuleInit(): void {
    this.content.provideCalendarPosts(async (workspaceId, range) => {
      const posts = await this.posts.between(this.ds.manager, workspaceId, range);
      return posts.map((p) => ({ at: p.publishedAt ?? p.scheduledAt, body: toScheduledPostBody(p) }));
    });
  }
}
