import { Module, type OnModuleInit } from '@nestjs/common';
import { CharactersModule } from '../characters/index.js';
import { MonetizationModule } from '../monetization/index.js';
import { PostingHistories, PublishingFacade, PublishingModule } from '../publishing/index.js';
import { AnalyticsController } from './api/analytics.controller.js';
import { AnalyticsSyncJob } from './application/analytics-sync.job.js';
import { AnalyticsFacade } from './application/analytics.facade.js';
import { AnalyticsService } from './application/analytics.service.js';
import { MetricsSource } from './application/ports/metrics-source.js';
import { SyncScheduler } from './application/sync-scheduler.js';
import { AnalyticsReadsRepository } from './infrastructure/analytics-reads.repository.js';
import { AnalyticsRepository } from './infrastructure/analytics.repository.js';
import { SyncStateRepository } from './infrastructure/sync-state.repository.js';
import { AnalyticsDataContributor } from './infrastructure/analytics-data.contributor.js';

/**
 * Analytics (contract §15): metric storage, the sync jobs and their scheduler, the routes, and the
 * characters' follower counts. Platform calls go through publishing (`MetricsSource`); the
 * overview's earnings come from monetization's facade.
 */
@Module({
  imports: [CharactersModule, PublishingModule, MonetizationModule],
  controllers: [AnalyticsController],
  providers: [AnalyticsDataContributor,
    { provide: MetricsSource, useExisting: PublishingFacade },
    AnalyticsRepository, AnalyticsReadsRepository, SyncStateRepository, AnalyticsService, AnalyticsSyncJob, SyncScheduler, AnalyticsFacade,
  ],
  exports: [AnalyticsFacade],
})
export class AnalyticsModule implements OnModuleInit {
  constructor(
    private readonly histories: PostingHistories,
    private readonly facade: AnalyticsFacade,
  ) {}

  /** The slot planner learns each character's best hours from here (publishing cannot import analytics). */
  onModuleInit(): void {
    this.histories.use(this.facade);
  }
}
