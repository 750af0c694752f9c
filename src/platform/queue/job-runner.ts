import { Injectable, Logger } from '@nestjs/common';
import { AppError } from '../../core/index.js';
import { RealtimePublisher } from '../realtime/realtime.types.js';
import { HandlerLookup, type RegisteredHandler } from './handler-registry.js';
import { toJobBody } from './job-body.js';
import { JobStore } from './job-store.js';
import type { JobContext, JobFailure, JobFailureHookFn, JobRecord } from './job.types.js';

type JobEventType = 'job.progress' | 'job.completed' | 'job.failed';

/** A thrown error as the job record shows it: the AppError's code and message, or a generic failure. */
export function toJobFailure(err: unknown): JobFailure {
  if (err instanceof AppError) return { code: err.code, message: err.message };
  return { code: 'job_failed', message: 'The job failed unexpectedly.' };
}

/**
 * Runs one delivered job against its row. Delivery is at-least-once, so the row decides: a job
 * already completed, failed or cancelled is skipped; a pending or running one (re-delivered after a
 * crash) runs, and its idempotent handler does the work once.
 */
@Injectable()
export class JobRunner {
  private readonly logger = new Logger('Jobs');

  constructor(
    private readonly store: JobStore,
    private readonly handlers: HandlerLookup,
    private readonly publisher: RealtimePublisher,
  ) {}

  async run(jobId: string): Promise<void> {
    const job = await this.store.claim(jobId);
    if (!job) {
      this.logger.debug({ msg: 'job skipped: missing or already finished', job_id: jobId });
      return;
    }
    await this.emit('job.progress', job);
    const handler = this.handlers.handlerFor(job.jobType);
    if (!handler) {
      this.logger.error({ msg: 'no handler for job type', job_id: job.id, job_type: job.jobType });
      await this.failJob(job, { code: 'job_failed', message: `No handler is registered for job type "${job.jobType}".` });
      return;
    }
    await this.execute(job, handler);
  }

  private async execute(job: JobRecord, handler: RegisteredHandler): Promise<void> {
    let result: Record<string, unknown> | void;
    try {
      result = await handler.run(this.contextFor(job));
    } catch (err) {
      if (!(err instanceof AppError)) this.logger.error({ msg: 'job handler threw', job_id: job.id, job_type: job.jobType, err: describe(err) });
      await this.failJob(job, toJobFailure(err), handler.onFailed);
      return;
    }
    const done = await this.store.complete(job.id, result ?? null);
    if (done) await this.emit('job.completed', done);
  }

  private contextFor(job: JobRecord): JobContext {
    let reported = job.progress;
    return {
      job,
      progress: async (percent: number) => {
        if (!Number.isFinite(percent)) return;
        const pct = Math.min(100, Math.max(0, Math.round(percent)));
        // Never backwards, and no write for a value already reported.
        if (pct <= reported) return;
        reported = pct;
        const updated = await this.store.advance(job.id, pct);
        if (updated) await this.emit('job.progress', updated);
      },
    };
  }

  private async failJob(job: JobRecord, failure: JobFailure, hook?: JobFailureHookFn): Promise<void> {
    let failed: JobRecord | null;
    try {
      failed = await this.store.fail(job.id, failure, hook);
    } catch (err) {
      if (!hook) throw err;
      // The hook rolled back with its transaction; the job must still end rather than hang as running.
      this.logger.error({ msg: 'job failure hook threw', job_id: job.id, job_type: job.jobType, err: describe(err) });
      failed = await this.store.fail(job.id, failure);
    }
    if (failed) await this.emit('job.failed', failed);
  }

  /** The row is the truth; a lost event only costs a client a poll, so publishing never fails a job. */
  private async emit(type: JobEventType, job: JobRecord): Promise<void> {
    try {
      await this.publisher.publish(job.workspaceId, { type, job: { ...toJobBody(job) } });
    } catch (err) {
      this.logger.warn({ msg: 'job event not published', job_id: job.id, type, err: describe(err) });
    }
  }
}

function describe(e: unknown): Record<string, unknown> {
  return e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : { value: String(e) };
}
