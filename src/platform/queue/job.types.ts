import { newId } from '../../core/index.js';
import type { ComposedStatement, Tx } from '../database/index.js';
import type { JobPayloads, JobType } from './job-types.js';

export const JOB_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Why a job failed, as the API and the socket show it: a code and a readable message, never a stack. */
export interface JobFailure {
  code: string;
  message: string;
}

/** The job row of one type: the truth the API and the socket report (contract §6). */
interface JobRow<T extends JobType> {
  id: string;
  workspaceId: string;
  jobType: T;
  status: JobStatus;
  progress: number;
  characterId: string | null;
  contentId: string | null;
  payload: JobPayloads[T];
  result: Record<string, unknown> | null;
  error: JobFailure | null;
  attempts: number;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** A job row of type `T` (any type by default), its payload the one that type declares. */
export type JobRecord<T extends JobType = JobType> = JobRow<T>;

interface NewJobOf<T extends JobType> {
  workspaceId: string;
  jobType: T;
  characterId?: string | null;
  contentId?: string | null;
  payload: JobPayloads[T];
}

/** What `create` writes: a job type and that type's payload (another payload does not compile). */
export type NewJob<T extends JobType = JobType> = { [K in T]: NewJobOf<K> }[T];

/**
 * The end of a job's work, reported into the job row by the work's owner in the transaction that
 * ends the work, when it ends outside the handler (a provider's webhook). Progress is left to the
 * handler, whose reports are what `job.progress` events carry.
 */
export type JobSettlement =
  | { status: 'completed'; result: Record<string, unknown> }
  | { status: 'failed'; error: JobFailure };

/**
 * What a handler gets: its job (as claimed, `status: 'running'`), and a way to report progress
 * (0-100, never backwards), streamed as `job.progress`. Call `progress` outside your own
 * transactions: it writes the job row on its own connection (PGlite runs one transaction at a time).
 * `signal` aborts when the process stops before the handler finished and lets the job go (the row
 * is pending again; another run does the work): from then on the handler's outcome is ignored, and
 * it must not record a failure of its own (an error it meets may be the stop's).
 */
export interface JobContext<T extends JobType = JobType> {
  job: JobRecord<T>;
  progress(percent: number): Promise<void>;
  signal: AbortSignal;
}

/**
 * A handler answers the job's result, or throws to fail it (an `AppError` keeps its code, anything
 * else fails as `job_failed`). It must be idempotent: a re-delivered job runs it again.
 */
export type JobHandlerFn<T extends JobType = JobType> = (ctx: JobContext<T>) => Promise<Record<string, unknown> | void>;

/**
 * Runs in the same transaction that marks the job failed (`job.error` is set), so compensation such
 * as a credit refund commits together with the failure or not at all. Must be idempotent too.
 */
export type JobFailureHookFn<T extends JobType = JobType> = (tx: Tx, job: JobRecord<T>) => Promise<void>;

/**
 * The job port. A job is a row first (`create`, inside the caller's transaction) and a queue
 * message second (`enqueue`, after that transaction commits).
 */
export abstract class Jobs {
  abstract create<T extends JobType>(tx: Tx, job: NewJob<T>): Promise<JobRecord<T>>;

  /** The row `create` writes, not written yet: for a caller that writes it with `addInsert`. */
  prepare<T extends JobType>(job: NewJob<T>): JobRecord<T> {
    return {
      id: newId('job'),
      workspaceId: job.workspaceId,
      jobType: job.jobType,
      status: 'pending',
      progress: 0,
      characterId: job.characterId ?? null,
      contentId: job.contentId ?? null,
      payload: job.payload,
      result: null,
      error: null,
      attempts: 0,
      createdAt: new Date(),
      startedAt: null,
      finishedAt: null,
    };
  }

  /**
   * Adds the INSERT of a prepared row to a caller's statement (as the common table expression
   * `new_job`); `enqueue` the job once that statement has run.
   */
  abstract addInsert(statement: ComposedStatement, job: JobRecord): void;

  /** Hands the job to the queue. Never throws for a transport outage: the recovery sweep re-sends open rows. */
  abstract enqueue(job: JobRecord): Promise<void>;
  /**
   * Writes the end `settlement` into a job that has not ended, inside the caller's `tx`, whichever run holds
   * it: so a job never reads running while the work it stands for already ended. The run that then
   * returns finds the row ended and announces it. False when the job had already ended.
   */
  abstract settle(tx: Tx, workspaceId: string, id: string, settlement: JobSettlement): Promise<boolean>;
  /** Withdraws a pending or running job inside `tx` (it becomes cancelled); false when it had already ended. */
  abstract cancel(tx: Tx, workspaceId: string, id: string): Promise<boolean>;
  abstract get(workspaceId: string, id: string): Promise<JobRecord | null>;
  /** Several jobs of one workspace by id in one read (e.g. the jobs of a page of items). */
  abstract getMany(workspaceId: string, ids: readonly string[], tx?: Tx): Promise<Map<string, JobRecord>>;
}
