import { Module } from '@nestjs/common';
import { CharactersModule } from '../characters/index.js';
import { PublishingFacade, PublishingModule } from '../publishing/index.js';
import { AnalyticsController } from './api/analytics.controller.js';
import { AnalyticsSyncJob } from './application/analytics-sync.job.js';
import { AnalyticsFacade } from './application/analytics.facade.js';
import { AnalyticsService } from './application/analytics.service.js';
import { MetricsSource } from './application/ports/metrics-source.js';
import { SyncScheduler } from './application/sync-scheduler.js';
import { AnalyticsReadsRepository } from './infrastructure/analytics-reads.repository.js';
import { AnalyticsRepository } from './infrastructure/analytics.repository.js';
import { SyncStateRepository } from './infrastructure/sync-state.repository.js';

/**
 * Analytics (contract §15): metric storage, the sync jobs and their scheduler, the routes, and the
 * characters' follower counts. Platform calls go through publishing (`MetricsSource`).
 */
@Module({
  imports: [CharactersModule, PublishingModule],
  controllers: [AnalyticsController],
  providers: [
    // TODO(merge): PublishingFacade is a stub on this branch; the publishing helper's facade replaces it.
    { provide: MetricsSource, useExisting: PublishingFacade },
    AnalyticsRepository, AnalyticsReadsRepository, SyncStateRepository, AnalyticsService, AnalyticsSyncJob, SyncScheduler, AnalyticsFacade,
  ],
  exports: [AnalyticsFacade],
})
export class AnalyticsModule {}
