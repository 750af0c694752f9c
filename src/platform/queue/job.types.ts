import { newId } from '../../core/index.js';
import type { ComposedStatement, Tx } from '../database/index.js';

export const JOB_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Why a job failed, as the API and the socket show it: a code and a readable message, never a stack. */
export interface JobFailure {
  code: string;
  message: string;
}

/** The job row: the truth the API and the socket report (contract §6). */
export interface JobRecord {
  id: string;
  workspaceId: string;
  jobType: string;
  status: JobStatus;
  progress: number;
  characterId: string | null;
  contentId: string | null;
  payload: Record<string, unknown>;
  result: Record<string, unknown> | null;
  error: JobFailure | null;
  attempts: number;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export interface NewJob {
  workspaceId: string;
  jobType: string;
  characterId?: string | null;
  contentId?: string | null;
  payload?: Record<string, unknown>;
}

/**
 * What a handler gets: its job (as claimed, `status: 'running'`), and a way to report progress
 * (0-100, never backwards), streamed as `job.progress`. Call `progress` outside your own
 * transactions: it writes the job row on its own connection (PGlite runs one transaction at a time).
 */
export interface JobContext {
  job: JobRecord;
  progress(percent: number): Promise<void>;
}

/**
 * A handler answers the job's result, or throws to fail it (an `AppError` keeps its code, anything
 * else fails as `job_failed`). It must be idempotent: a re-delivered job runs it again.
 */
export type JobHandlerFn = (ctx: JobContext) => Promise<Record<string, unknown> | void>;

/**
 * Runs in the same transaction that marks the job failed (`job.error` is set), so compensation such
 * as a credit refund commits together with the failure or not at all. Must be idempotent too.
 */
export type JobFailureHookFn = (tx: Tx, job: JobRecord) => Promise<void>;

/**
 * The job port. A job is a row first (`create`, inside the caller's transaction) and a queue
 * message second (`enqueue`, after that transaction commits).
 */
export abstract class Jobs {
  abstract create(tx: Tx, job: NewJob): Promise<JobRecord>;

  /** The row `create` writes, not written yet: for a caller that writes it with `addInsert`. */
  prepare(job: NewJob): JobRecord {
    return {
      id: newId('job'),
      workspaceId: job.workspaceId,
      jobType: job.jobType,
      status: 'pending',
      progress: 0,
      characterId: job.characterId ?? null,
      contentId: job.contentId ?? null,
      payload: job.payload ?? {},
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
  abstract get(workspaceId: string, id: string): Promise<JobRecord | null>;
  /** Several jobs of one workspace by id in one read (e.g. the jobs of a page of items). */
  abstract getMany(workspaceId: string, ids: readonly string[], tx?: Tx): Promise<Map<string, JobRecord>>;
}
