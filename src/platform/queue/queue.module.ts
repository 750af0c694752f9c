import { DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { ProcessRole } from '../../core/index.js';
import { AppConfig } from '../../config/index.js';
import { HandlerLookup, JOB_TYPES, JobHandlerRegistry } from './handler-registry.js';
import { JobConsumer, QUEUE_ROLE } from './job-consumer.js';
import { JobEventBodies } from './job-event-bodies.js';
import { JobEntity } from './job.entity.js';
import { JobList } from './job-list.js';
import { JobRunner } from './job-runner.js';
import { JobStore, OpenJobCounts, OwedFailureHookCounts, TypeOrmJobStore } from './job-store.js';
import type { JobType } from './job-types.js';
import { Jobs } from './job.types.js';
import { JobsController } from './jobs.controller.js';
import { JobsService } from './jobs.service.js';
import { PeriodicPasses } from './periodic-jobs.js';
import { PublicJobsController } from './public-jobs.controller.js';
import { QueueMetrics } from './queue-metrics.js';
import { BullTransport } from './transport/bull-transport.js';
import { InProcessTransport } from './transport/in-process-transport.js';
import { JobTransport } from './transport/job-transport.js';

/**
 * A queue of ids: Bull on Redis with REDIS_URL, else in this process. The jobs queue uses it, and
 * so can a context whose rows are their own job records (the publishing context's posts).
 */
export function createQueueTransport(config: AppConfig, name = 'jobs', concurrency = config.jobConcurrency): JobTransport {
  return config.redisUrl
    ? new BullTransport(config.redisUrl, config.redisPrefix, concurrency, config.jobRecovery, name)
    : new InProcessTransport(concurrency);
}


/**
 * Jobs: rows in PostgreSQL, messages through Bull (with REDIS_URL) or an in-process queue, run by
 * the `@JobHandler` methods found at boot, exactly one for each of `jobTypes` (else the boot stops).
 * Every role produces; the worker role (and the API when configured, or without Redis) consumes.
 */
@Global()
@Module({})
export class QueueModule {
  static forRoot(role: ProcessRole, jobTypes: readonly JobType[]): DynamicModule {
    return {
      module: QueueModule,
      imports: [DiscoveryModule, TypeOrmModule.forFeature([JobEntity])],
      controllers: [JobsController, PublicJobsController],
      providers: [
        { provide: QUEUE_ROLE, useValue: role },
        { provide: JOB_TYPES, useValue: jobTypes },
        { provide: JobTransport, inject: [AppConfig], useFactory: (config: AppConfig) => createQueueTransport(config) },
        { provide: JobStore, useClass: TypeOrmJobStore },
        JobHandlerRegistry,
        { provide: HandlerLookup, useExisting: JobHandlerRegistry },
        JobRunner,
        JobsService,
        { provide: Jobs, useExisting: JobsService },
        JobConsumer,
        OpenJobCounts,
        OwedFailureHookCounts,
        JobList,
        QueueMetrics,
        PeriodicPasses,
        JobEventBodies,
      ],
      exports: [Jobs, JobsService, QUEUE_ROLE, PeriodicPasses],
    };
  }
}
