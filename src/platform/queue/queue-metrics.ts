import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Metrics } from '../metrics/metrics.js';
import { JOB_TYPES } from './handler-registry.js';
import { OpenJobCounts, OwedFailureHookCounts } from './job-store.js';

/**
 * Refreshes the queue gauges from the job rows when Prometheus scrapes, not on a timer and never per
 * request: the open jobs by type and status, and the failure hooks (refunds) still owed. Two
 * collectors, so a failed read of one leaves the other's gauges current.
 */
@Injectable()
export class QueueMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly counts: OpenJobCounts,
    private readonly owed: OwedFailureHookCounts,
    @Inject(JOB_TYPES) private readonly jobTypes: readonly string[],
  ) {}

  onModuleInit(): void {
    this.metrics.collectOnScrape(async () => this.metrics.setOpenJobs(await this.counts.count(), this.jobTypes));
    this.metrics.collectOnScrape(async () => this.metrics.setOwedFailureHooks(await this.owed.count()));
  }
}
