import type { Tx } from '../database/index.js';

export const JOB_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

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
  error: { code: string; message: string } | null;
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

/** What a handler gets: its job, and a way to report progress (0-100), streamed as `job.progress`. */
export interface JobContext {
  job: JobRecord;
  progress(percent: number): Promise<void>;
}

/** A handler answers the job's result, or throws to fail it. It must be idempotent. */
export type JobHandlerFn = (ctx: JobContext) => Promise<Record<string, unknown> | void>;

/**
 * The job port. A job is a row first (`create`, inside the caller's transaction) and a queue
 * message second (`enqueue`, after that transaction commits).
 */
export abstract class Jobs {
  abstract create(tx: Tx, job: NewJob): Promise<JobRecord>;
  abstract enqueue(job: JobRecord): Promise<void>;
  abstract get(workspaceId: string, id: string): Promise<JobRecord | null>;
}
