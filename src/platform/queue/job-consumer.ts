import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../config/index.js';
import type { ProcessRole } from '../../core/index.js';
import { outages } from '../health/outages.js';
import { ProcessLifecycle } from '../lifecycle/index.js';
import { JobRunner } from './job-runner.js';
import { JobStore, type OpenJobRef } from './job-store.js';
import { JobTransport, NO_DEADLINE } from './transport/job-transport.js';

export const QUEUE_ROLE = Symbol('QueueRole');

/** Whether a process of this role consumes queued work: workers, and the API without Redis or when asked. */
export function consumesQueues(role: ProcessRole, config: AppConfig): boolean {
  return role === 'worker' || config.runJobsInApi;
}

/** Open rows the sweep reads and re-sends at once (one query, one Redis round trip); it pages through all. */
export const SWEEP_PAGE = 500;

/**
 * Consumes jobs where this process should (the worker role, or the API when RUN_JOBS_IN_API or no
 * Redis). At start it re-sends every open row: pending ones whose enqueue was lost after commit,
 * and running ones left by a dead process. The transport ignores ids it already holds, so a live
 * job is never started twice by this. Every JOB_SWEEP_INTERVAL_MS it does the same for the rows
 * older than that interval (messages lost with Redis's data), however many there are, and pays
 * the failure hooks failed jobs still owe. When the process stops it takes no more jobs, lets the
 * running ones finish until the stop's release point, and puts the rest back to pending.
 */
@Injectable()
export class JobConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private timer?: NodeJS.Timeout;
  private sweeping = false;
  private sweepFailing = false;
  private closing?: Promise<Record<string, unknown>>;

  constructor(
    @Inject(QUEUE_ROLE) private readonly role: ProcessRole,
    private readonly config: AppConfig,
    private readonly transport: JobTransport,
    private readonly runner: JobRunner,
    private readonly store: JobStore,
    private readonly lifecycle: ProcessLifecycle,
  ) {}

  get consumes(): boolean {
    return consumesQueues(this.role, this.config);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.consumes) return;
    this.transport.consume((id) => this.runner.run(id));
    await this.resend(new Date());
    // A Redis that comes back may have come back empty: its waiting messages are re-sent at once.
    this.transport.onReconnect(() => void this.resend(new Date()));
    // Messages whose claim met a database outage were spent: the rows they carried go again.
    outages.onRestored((dependency) => {
      if (dependency === 'database' && !this.closing) void this.resend(new Date());
    });
    // Not unref'd: in a worker this timer is what keeps an idle process alive between jobs.
    this.timer = setInterval(() => void this.sweep(), this.config.jobRecovery.sweepIntervalMs);
    this.lifecycle.onStop((releaseAt) => this.close(releaseAt));
    this.logger.log({ msg: 'job consumer started', role: this.role });
  }

  /** A close no stop began (tests, the CLI) waits for the running jobs, however long. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.close(NO_DEADLINE);
  }

  /** Closes once: the stop's listener and the shutdown hook share it. */
  close(releaseAt: Promise<void>): Promise<Record<string, unknown>> {
    this.closing ??= this.stopConsuming(releaseAt);
    return this.closing;
  }

  /**
   * Stops taking jobs, waits for the running ones until `releaseAt`, then releases those still
   * running (rows back to pending first, then their queue messages end) and answers the counts.
   */
  private async stopConsuming(releaseAt: Promise<void>): Promise<Record<string, unknown>> {
    clearInterval(this.timer);
    const released = releaseAt.then(() => this.runner.releaseRunning()).catch((err: unknown) => {
      this.logger.error({ msg: 'running jobs not released; the next start re-sends them', err: String(err) });
      return 0;
    });
    const report = await this.transport.close(released);
    if (!this.consumes) return {};
    return { jobs_finished: report.finished, jobs_released: report.abandoned > 0 ? await released : 0 };
  }

  /** One periodic pass; a pass still running (a large backlog, a slow database) skips the next tick. */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      await this.resend(new Date(Date.now() - this.config.jobRecovery.sweepIntervalMs));
      await this.runner.payOwedHooks().catch(async (err: unknown) => {
        if (!(await outages.covers(err))) this.logger.warn({ msg: 'owed job failure hooks not paid', err: String(err) });
      });
    } finally {
      this.sweeping = false;
    }
  }

  /** Re-sends every open row created before `before`, a page at a time, and answers how many. */
  async resend(before: Date): Promise<number> {
    let sent = 0;
    try {
      let after: OpenJobRef | undefined;
      for (;;) {
        const page = await this.store.openJobs(before, SWEEP_PAGE, after);
        if (page.length > 0) await this.transport.addMany(page.map((j) => j.id));
        sent += page.length;
        if (page.length < SWEEP_PAGE) break;
        after = page[page.length - 1];
      }
      this.sweepFailing = false;
    } catch (err) {
      // A database or Redis outage is reported once by the outage log; anything else warns once per failing streak.
      const first = !this.sweepFailing;
      this.sweepFailing = true;
      const line = { msg: 'job recovery sweep failed', sent, err: String(err) };
      if (await outages.warnsFor(err, first)) this.logger.warn(line);
      else this.logger.debug(line);
    }
    if (sent > 0) this.logger.log({ msg: 'open jobs re-sent', count: sent });
    return sent;
  }
}
