import { Injectable, Logger } from '@nestjs/common';
import { AppError } from '../../core/index.js';
import { outages } from '../health/outages.js';
import { Metrics, type JobOutcome } from '../metrics/metrics.js';
import { RealtimePublisher } from '../realtime/realtime.types.js';
import { isStorageUnavailable, MediaUrls, storageError } from '../storage/index.js';
import { HandlerLookup, type RegisteredHandler } from './handler-registry.js';
import { toJobBody } from './job-body.js';
import { JobStore } from './job-store.js';
import type { JobContext, JobFailure, JobFailureHookFn, JobRecord } from './job.types.js';

/** How often a run that met an outage tries to put its row back to pending. */
const OUTAGE_RETRY_MS = 1_000;
/** Runs again in one delivery after outages, at most (a handler that keeps meeting one then fails). */
const MAX_OUTAGE_RUNS = 3;

type JobEventType = 'job.progress' | 'job.completed' | 'job.failed';

/**
 * A thrown error as the job record shows it: the AppError's code and message; a disk that could
 * not take a write (full, read-only) as `storage_unavailable`; else a generic failure.
 */
export function toJobFailure(err: unknown): JobFailure {
  if (isStorageUnavailable(err)) err = storageError(err);
  if (err instanceof AppError) return { code: err.code, message: err.message };
  return { code: 'job_failed', message: 'The job failed unexpectedly.' };
}

/**
 * When an owed failure hook is tried again after failing `tries` times: 2 s, doubling up to 5 min.
 * The consumer's sweep picks due hooks up, so the real wait rounds up to its next pass.
 */
export function owedHookRetryMs(tries: number): number {
  return Math.min(300_000, 2_000 * 2 ** Math.min(Math.max(0, Math.floor(tries)), 16));
}

/** Owed failure hooks one sweep pass tries at most. */
const OWED_HOOKS_BATCH = 100;

/** A run in this process: the job as claimed (its attempt fences every write) and how to let it go. */
interface ActiveRun {
  job: JobRecord;
  abort: AbortController;
  /** When this process claimed it (hrtime): what the job duration histogram measures. */
  started: bigint;
  /** How many times this delivery ran the job again after an outage. */
  outageRuns: number;
}

/**
 * Runs one delivered job against its row. Delivery is at-least-once, so the row decides: a job
 * already completed, failed or cancelled is skipped; a pending or running one (re-delivered after a
 * crash) runs, and its idempotent handler does the work once. Every write of a run is fenced by
 * its claim's attempt, so only the latest run of a job can finish it.
 */
@Injectable()
export class JobRunner {
  private readonly logger = new Logger('Jobs');
  private readonly active = new Map<string, ActiveRun>();
  /** Whether the last claim failed (the database is away): only the first failure of a run of them warns. */
  private claimsFailing = false;

  constructor(
    private readonly store: JobStore,
    private readonly handlers: HandlerLookup,
    private readonly publisher: RealtimePublisher,
    private readonly metrics: Metrics,
    private readonly urls: MediaUrls,
  ) {}

  /**
   * Rejects only when the row could not be claimed, completed or failed (the database is away):
   * the transport then delivers the id again with back-off (`redeliveryDelayMs`), and the row,
   * still pending or running, is claimed by that delivery.
   */
  async run(jobId: string, outageRuns = 0): Promise<void> {
    const started = process.hrtime.bigint();
    let job: JobRecord | null;
    try {
      job = await this.store.claim(jobId);
    } catch (err) {
      // One warning per failing streak, not one per delivery: every waiting job fails its claim in
      // turn. An outage is the outage log's one warning, so it warns nothing here.
      const first = !this.claimsFailing;
      this.claimsFailing = true;
      const line = { msg: 'job not claimed; delivered again after a back-off', job_id: jobId, err: String(err) };
      if (await outages.warnsFor(err, first)) this.logger.warn(line);
      else this.logger.debug(line);
      throw err;
    }
    if (this.claimsFailing) {
      this.claimsFailing = false;
      this.logger.log({ msg: 'job claims succeed again', job_id: jobId });
    }
    if (!job) {
      this.logger.debug({ msg: 'job skipped: missing or already finished', job_id: jobId });
      return;
    }
    await this.emit('job.progress', job);
    const handler = this.handlers.handlerFor(job.jobType);
    if (!handler) {
      this.logger.error({ msg: 'no handler for job type', job_id: job.id, job_type: job.jobType });
      await this.failJob({ job, abort: new AbortController(), started, outageRuns }, { code: 'job_failed', message: `No handler is registered for job type "${job.jobType}".` });
      return;
    }
    const run: ActiveRun = { job, abort: new AbortController(), started, outageRuns };
    this.active.set(job.id, run);
    try {
      await this.execute(run, handler);
    } finally {
      if (this.active.get(job.id) === run) this.active.delete(job.id);
    }
  }

  /**
   * Lets go of every job still running here (a stop's bound is near): each row goes back to
   * pending, so the next delivery (the re-send at the next start, or a peer's sweep) runs it again,
   * and each handler's signal aborts. Whatever such a handler does afterwards is fenced out.
   * Answers how many rows were released.
   */
  async releaseRunning(): Promise<number> {
    const runs = [...this.active.values()];
    this.active.clear();
    let released = 0;
    for (const { job, abort } of runs) {
      abort.abort();
      if (await this.store.release(job.id, job.attempts)) released += 1;
      this.logger.warn({ msg: 'job released at stop', job_id: job.id, job_type: job.jobType, attempt: job.attempts });
    }
    return released;
  }

  /**
   * Pays the failure hooks (refunds) owed by jobs that failed while their hook could not commit:
   * each in the transaction that clears its debt, so it runs once; one that fails again is tried
   * later with back-off (`owedHookRetryMs`). Answers how many were paid.
   */
  async payOwedHooks(): Promise<number> {
    let paid = 0;
    for (const { job, tries } of await this.store.owedHooks(OWED_HOOKS_BATCH)) {
      try {
        if (await this.store.payOwedHook(job.id, this.handlers.handlerFor(job.jobType)?.onFailed)) paid += 1;
      } catch (err) {
        if (await outages.covers(err)) throw err; // the sweep tries again after the outage
        const delayMs = owedHookRetryMs(tries + 1);
        this.logger.error({ msg: 'owed job failure hook failed again', job_id: job.id, job_type: job.jobType, tries: tries + 1, retry_in_ms: delayMs, err: describe(err) });
        await this.store.deferOwedHook(job.id, delayMs);
      }
    }
    if (paid > 0) this.logger.log({ msg: 'owed job failure hooks paid', count: paid });
    return paid;
  }

  /** How many jobs this process is running. */
  get running(): number {
    return this.active.size;
  }

  private async execute(run: ActiveRun, handler: RegisteredHandler): Promise<void> {
    const { job, abort } = run;
    let result: Record<string, unknown> | void;
    try {
      result = await handler.run(this.contextFor(job, abort.signal));
    } catch (err) {
      if (abort.signal.aborted) return;
      if (!(err instanceof AppError) && run.outageRuns < MAX_OUTAGE_RUNS && (await outages.explains(err))) {
        return this.runAgainAfterOutage(run);
      }
      if (!(err instanceof AppError)) this.logger.error({ msg: 'job handler threw', job_id: job.id, job_type: job.jobType, err: describe(err) });
      await this.failJob(run, toJobFailure(err), handler.onFailed);
      return;
    }
    if (abort.signal.aborted) return;
    const done = (await this.store.complete(job.id, job.attempts, result ?? null)) ?? (await this.settledDuring(job, 'completed'));
    if (!done) return;
    this.observe(run, 'completed');
    await this.emit('job.completed', done);
  }

  /**
   * A handler that met a database or Redis outage did not fail the job: its row goes back to pending
   * as soon as the database takes the write (retried until then, or until a stop lets it go), and
   * runs again at once in this delivery. Failing it instead lost the work and, with the database
   * away, its failure hook too, leaving the row running until its lease ran out.
   */
  private async runAgainAfterOutage(run: ActiveRun): Promise<void> {
    const { job, abort } = run;
    for (;;) {
      if (abort.signal.aborted) return;
      try {
        if (!(await this.store.release(job.id, job.attempts))) return;
        break;
      } catch (releaseErr) {
        if (!(await outages.covers(releaseErr))) throw releaseErr;
        await new Promise((r) => setTimeout(r, OUTAGE_RETRY_MS));
      }
    }
    if (this.active.get(job.id) === run) this.active.delete(job.id);
    this.logger.log({ msg: 'job released after an outage; running it again', job_id: job.id, job_type: job.jobType });
    await this.run(job.id, run.outageRuns + 1);
  }

  /**
   * The row as the work's owner ended it while this run still held it (`Jobs.settle`): this run
   * announces that end, since nobody else will. Null when another attempt holds the row, or it ended otherwise.
   */
  private async settledDuring(job: JobRecord, status: 'completed' | 'failed'): Promise<JobRecord | null> {
    const row = await this.store.findInWorkspace(job.workspaceId, job.id);
    return row && row.status === status && row.attempts === job.attempts ? row : null;
  }

  /** Only the run that finished the row is measured: a fenced-out run did not finish the job. */
  private observe({ job, started }: ActiveRun, outcome: JobOutcome): void {
    this.metrics.jobFinished(job.jobType, outcome, Number(process.hrtime.bigint() - started) / 1e9);
  }

  private contextFor(job: JobRecord, signal: AbortSignal): JobContext {
    let reported = job.progress;
    return {
      job,
      signal,
      progress: async (percent: number) => {
        if (!Number.isFinite(percent) || signal.aborted) return;
        const pct = Math.min(100, Math.max(0, Math.round(percent)));
        // Never backwards, and no write for a value already reported.
        if (pct <= reported) return;
        reported = pct;
        const updated = await this.store.advance(job.id, job.attempts, pct);
        if (updated) await this.emit('job.progress', updated);
      },
    };
  }

  private async failJob(run: ActiveRun, failure: JobFailure, hook?: JobFailureHookFn): Promise<void> {
    const { job } = run;
    let failed: JobRecord | null;
    try {
      failed = await this.store.fail(job.id, job.attempts, failure, hook);
    } catch (err) {
      // Away, the database could take neither: the row stays running, and its next delivery runs it again.
      if (!hook || (await outages.covers(err))) throw err;
      // The hook rolled back with its transaction. The job still ends rather than hang as running,
      // and owes its hook (a refund) in that same transaction: `payOwedHooks` runs it until it commits.
      const retryMs = owedHookRetryMs(0);
      this.logger.error({ msg: 'job failure hook threw; the job fails owing it', job_id: job.id, job_type: job.jobType, retry_in_ms: retryMs, err: describe(err) });
      failed = await this.store.failOwingHook(job.id, job.attempts, failure, retryMs);
    }
    failed ??= await this.settledDuring(job, 'failed');
    if (!failed) return;
    this.observe(run, 'failed');
    await this.emit('job.failed', failed);
  }

  /** The row is the truth; a lost event only costs a client a poll, so publishing never fails a job. */
  private async emit(type: JobEventType, job: JobRecord): Promise<void> {
    try {
      await this.publisher.publish(job.workspaceId, { type, job: { ...toJobBody(job, this.urls) } });
    } catch (err) {
      this.logger.warn({ msg: 'job event not published', job_id: job.id, type, err: describe(err) });
    }
  }
}

function describe(e: unknown): Record<string, unknown> {
  return e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : { value: String(e) };
}
