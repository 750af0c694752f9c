import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Metrics } from '../metrics/metrics.js';
import { JOB_TYPES } from './handler-registry.js';
import { OpenJobCounts } from './job-store.js';

/** Refreshes the queue-depth gauge from the job rows when Prometheus scrapes, not on a timer. */
@Injectable()
export class QueueMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly counts: OpenJobCounts,
    @Inject(JOB_TYPES) private readonly jobTypes: readonly string[],
  ) {}

  onModuleInit(): void {
    this.metrics.collectOnScrape(async () => this.metrics.setOpenJobs(await this.counts.count(), this.jobTypes));
  }
}
