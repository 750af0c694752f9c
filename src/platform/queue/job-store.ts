import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { NewOutboxEvent } from '../../core/index.js';
import { jsonParam, SqlParams, type Tx } from '../database/index.js';
import type { OpenJobCount, OpenJobStatus, OwedFailureHooks } from '../metrics/metrics.js';
// The class itself, not the outbox's index: that one reaches the dispatcher, which imports this queue.
import { Outbox } from '../outbox/outbox.js';
import type { JobType } from './job-types.js';
import type { JobFailure, JobFailureHookFn, JobRecord, JobSettlement, JobStatus } from './job.types.js';

/**
 * Reads and writes job rows. Every state change is a conditional update, so a re-delivered or
 * concurrent message can never move a finished job again. A run is fenced by the attempt its claim
 * counted: a run that lost its claim (released at a stop, or claimed again by another process after
 * its own was presumed dead) can no longer report progress, complete or fail the job, so a job
 * completes once, whoever runs it last.
 */
export abstract class JobStore {
  abstract insert(tx: Tx, job: JobRecord): Promise<void>;
  abstract findInWorkspace(workspaceId: string, id: string): Promise<JobRecord | null>;
  abstract findManyInWorkspace(workspaceId: string, ids: readonly string[], tx?: Tx): Promise<JobRecord[]>;
  /** pending|running → running, attempts+1; null when missing or already finished. */
  abstract claim(id: string): Promise<JobRecord | null>;
  /** Raises progress of the job running as `attempt`; null when it was already at or past `progress`. */
  abstract advance(id: string, attempt: number, progress: number): Promise<JobRecord | null>;
  /** running as `attempt` → completed; null when the job is not running as that attempt. */
  abstract complete(id: string, attempt: number, result: Record<string, unknown> | null): Promise<JobRecord | null>;
  /** running as `attempt` → failed, running `hook` in the same transaction; null when it was not. */
  abstract fail(id: string, attempt: number, error: JobFailure, hook?: JobFailureHookFn): Promise<JobRecord | null>;
  /** running as `attempt` → pending (a stop let it go): the next delivery runs it again; false when it was not. */
  abstract release(id: string, attempt: number): Promise<boolean>;
  /** pending|running → cancelled inside `tx` (the owner withdrew the work); every later write of a run is fenced out. */
  abstract cancel(tx: Tx, workspaceId: string, id: string): Promise<boolean>;
  /** Ends a job that has not ended inside `tx`, whatever its attempt (see `Jobs.settle`). */
  abstract settle(tx: Tx, workspaceId: string, id: string, settlement: JobSettlement): Promise<boolean>;
  /** Pending or running jobs created before `before`, oldest first, after `after` (a page's last). */
  abstract openJobs(before: Date, limit: number, after?: OpenJobRef): Promise<OpenJobRef[]>;
  /**
   * running as `attempt` → failed, its failure hook owed (the hook's own transaction failed): the
   * debt is recorded in the transaction that ends the job, and `payOwedHook` settles it later.
   */
  abstract failOwingHook(id: string, attempt: number, error: JobFailure, firstRetryMs: number): Promise<JobRecord | null>;
  /** Failed jobs whose hook is owed and due, the longest due first. */
  abstract owedHooks(limit: number): Promise<OwedFailureHook[]>;
  /** Runs `hook` in the transaction that clears the debt, so it runs once; false when nothing was owed. */
  abstract payOwedHook(id: string, hook: JobFailureHookFn | undefined): Promise<boolean>;
  /** The hook failed again: try once more in `delayMs`. */
  abstract deferOwedHook(id: string, delayMs: number): Promise<void>;
}

/** An open job as the recovery sweep pages through them. */
export interface OpenJobRef {
  id: string;
  createdAt: Date;
}

/** A failed job whose failure hook (its refund) has not committed yet, and how often it was tried. */
export interface OwedFailureHook {
  job: JobRecord;
  tries: number;
}

/** A `jobs` row as PostgreSQL answers it. */
export interface JobRow {
  id: string;
  workspace_id: string;
  job_type: string;
  status: JobStatus;
  progress: number;
  character_id: string | null;
  content_id: string | null;
  payload: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  error: JobFailure | null;
  attempts: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** A row as read: its type and payload were written together by `create`, so they still match. */
export function fromJobRow(r: JobRow): JobRecord {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    jobType: r.job_type as JobType,
    status: r.status,
    progress: r.progress,
    characterId: r.character_id,
    contentId: r.content_id,
    payload: (r.payload ?? {}) as JobRecord['payload'],
    result: r.result,
    error: r.error,
    attempts: r.attempts,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}

/** The INSERT of a job row, its values bound to `p`: on its own, or as a part of a caller's statement. */
export function jobInsertSql(p: SqlParams, job: JobRecord): string {
  return `INSERT INTO jobs (id, workspace_id, job_type, status, progress, character_id, content_id, payload, result, error,
      attempts, created_at, started_at, finished_at)
    VALUES (${p.bindAll([job.id, job.workspaceId, job.jobType, job.status, job.progress, job.characterId, job.contentId, jsonParam(job.payload),
      jsonParam(job.result), jsonParam(job.error), job.attempts, job.createdAt, job.startedAt, job.finishedAt])})`;
}

/**
 * The customer event of a job that just ended (`job.completed` / `job.failed`), recorded in the
 * transaction that ends it. Every job row belongs to a workspace and is listed by GET /jobs, so
 * every job type's end is one; a cancelled job (the owner withdrew it) is not.
 */
export function jobEndEvent(job: Pick<JobRecord, 'id' | 'workspaceId' | 'jobType' | 'status'>): NewOutboxEvent<'job.completed' | 'job.failed'> | null {
  if (job.status !== 'completed' && job.status !== 'failed') return null;
  return { type: job.status === 'completed' ? 'job.completed' : 'job.failed', workspaceId: job.workspaceId, payload: { jobId: job.id, jobType: job.jobType } };
}

/** The condition of every change a run makes: the job is running, and as this run's attempt ($2). */
const RUNNING_AS = `status = 'running' AND attempts = $2`;

@Injectable()
export class TypeOrmJobStore extends JobStore {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly outbox: Outbox,
  ) {
    super();
  }

  /** Plain SQL: every paid order inserts one, and the entity insert builder cost more than the statement. */
  async insert(tx: Tx, job: JobRecord): Promise<void> {
    const p = new SqlParams();
    await tx.query(jobInsertSql(p, job), p.values);
  }

  async findInWorkspace(workspaceId: string, id: string): Promise<JobRecord | null> {
    const rows: JobRow[] = await this.ds.query('SELECT * FROM jobs WHERE id = $1 AND workspace_id = $2', [id, workspaceId]);
    return rows[0] ? fromJobRow(rows[0]) : null;
  }

  async findManyInWorkspace(workspaceId: string, ids: readonly string[], tx?: Tx): Promise<JobRecord[]> {
    if (ids.length === 0) return [];
    const rows: JobRow[] = await (tx ?? this.ds).query('SELECT * FROM jobs WHERE workspace_id = $1 AND id = ANY($2)', [workspaceId, [...ids]]);
    return rows.map(fromJobRow);
  }

  claim(id: string): Promise<JobRecord | null> {
    return this.update(
      this.ds,
      `status = 'running', attempts = attempts + 1, started_at = COALESCE(started_at, now())`,
      `status IN ('pending', 'running')`,
      [id],
    );
  }

  advance(id: string, attempt: number, progress: number): Promise<JobRecord | null> {
    return this.update(this.ds, 'progress = $3', `${RUNNING_AS} AND progress < $3`, [id, attempt, progress]);
  }

  /** With its `job.completed` event, in one transaction. */
  complete(id: string, attempt: number, result: Record<string, unknown> | null): Promise<JobRecord | null> {
    return this.ds.transaction(async (tx) => {
      const completed = await this.update(
        tx,
        `status = 'completed', progress = 100, result = $3::jsonb, error = NULL, finished_at = now()`,
        RUNNING_AS,
        [id, attempt, jsonParam(result)],
      );
      if (completed) await this.announceEnd(tx, completed);
      return completed;
    });
  }

  fail(id: string, attempt: number, error: JobFailure, hook?: JobFailureHookFn): Promise<JobRecord | null> {
    return this.ds.transaction(async (tx) => {
      const failed = await this.update(
        tx,
        `status = 'failed', error = $3::jsonb, finished_at = now()`,
        RUNNING_AS,
        [id, attempt, JSON.stringify(error)],
      );
      if (!failed) return null;
      await this.announceEnd(tx, failed);
      if (hook) await hook(tx, failed);
      return failed;
    });
  }

  async release(id: string, attempt: number): Promise<boolean> {
    return (await this.update(this.ds, `status = 'pending'`, RUNNING_AS, [id, attempt])) !== null;
  }

  async cancel(tx: Tx, workspaceId: string, id: string): Promise<boolean> {
    const rows: Array<{ id: string }> = await tx.query(
      `WITH changed AS (UPDATE jobs SET status = 'cancelled', finished_at = now()
         WHERE id = $1 AND workspace_id = $2 AND status IN ('pending', 'running') RETURNING id) SELECT id FROM changed`,
      [id, workspaceId],
    );
    return rows.length > 0;
  }

  async settle(tx: Tx, workspaceId: string, id: string, s: JobSettlement): Promise<boolean> {
    const [set, value] =
      s.status === 'completed'
        ? [`status = 'completed', progress = 100, result = $3::jsonb, error = NULL, finished_at = now()`, jsonParam(s.result)]
        : [`status = 'failed', error = $3::jsonb, finished_at = now()`, JSON.stringify(s.error)];
    const rows: Array<{ id: string; job_type: string }> = await tx.query(
      `WITH changed AS (UPDATE jobs SET ${set} WHERE id = $1 AND workspace_id = $2 AND status IN ('pending', 'running') RETURNING id, job_type)
       SELECT id, job_type FROM changed`,
      [id, workspaceId, value],
    );
    if (rows.length === 0) return false;
    await this.announceEnd(tx, { id, workspaceId, jobType: rows[0].job_type as JobType, status: s.status });
    return true;
  }

  async openJobs(before: Date, limit: number, after?: OpenJobRef): Promise<OpenJobRef[]> {
    const page = after ? `AND (created_at, id) > ($3, $4)` : '';
    const rows: Array<{ id: string; created_at: Date }> = await this.ds.query(
      `SELECT id, created_at FROM jobs WHERE status IN ('pending', 'running') AND created_at < $1 ${page} ORDER BY created_at, id LIMIT $2`,
      after ? [before, limit, after.createdAt, after.id] : [before, limit],
    );
    return rows.map((r) => ({ id: r.id, createdAt: r.created_at }));
  }

  /** With its `job.failed` event, in one transaction (the refund it owes comes later; the failure is now). */
  failOwingHook(id: string, attempt: number, error: JobFailure, firstRetryMs: number): Promise<JobRecord | null> {
    return this.ds.transaction(async (tx) => {
      const failed = await this.update(
        tx,
        `status = 'failed', error = $3::jsonb, finished_at = now(), failure_hook_due_at = now() + $4 * interval '1 millisecond'`,
        RUNNING_AS,
        [id, attempt, JSON.stringify(error), firstRetryMs],
      );
      if (failed) await this.announceEnd(tx, failed);
      return failed;
    });
  }

  async owedHooks(limit: number): Promise<OwedFailureHook[]> {
    const rows: Array<JobRow & { failure_hook_tries: number }> = await this.ds.query(
      `SELECT * FROM jobs WHERE failure_hook_due_at <= now() ORDER BY failure_hook_due_at LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ job: fromJobRow(r), tries: r.failure_hook_tries }));
  }

  payOwedHook(id: string, hook: JobFailureHookFn | undefined): Promise<boolean> {
    return this.ds.transaction(async (tx) => {
      // The row lock this takes makes a second payer wait, then find nothing owed.
      const job = await this.update(tx, 'failure_hook_due_at = NULL', `status = 'failed' AND failure_hook_due_at IS NOT NULL`, [id]);
      if (!job) return false;
      if (hook) await hook(tx, job);
      return true;
    });
  }

  async deferOwedHook(id: string, delayMs: number): Promise<void> {
    await this.ds.query(
      `UPDATE jobs SET failure_hook_tries = failure_hook_tries + 1, failure_hook_due_at = now() + $2 * interval '1 millisecond'
        WHERE id = $1 AND failure_hook_due_at IS NOT NULL`,
      [id, delayMs],
    );
  }

  /** The job's end as a customer event, in the transaction `tx` that ends it. */
  private async announceEnd(tx: Tx, job: Pick<JobRecord, 'id' | 'workspaceId' | 'jobType' | 'status'>): Promise<void> {
    const event = jobEndEvent(job);
    if (event) await this.outbox.record(tx, event);
  }

  /** An UPDATE … RETURNING wrapped in a SELECT, so the driver answers plain rows. */
  private async update(db: DataSource | Tx, set: string, condition: string, params: unknown[]): Promise<JobRecord | null> {
    const rows: JobRow[] = await db.query(
      `WITH changed AS (UPDATE jobs SET ${set} WHERE id = $1 AND ${condition} RETURNING *) SELECT * FROM changed`,
      params,
    );
    return rows[0] ? fromJobRow(rows[0]) : null;
  }
}

/**
 * Open jobs by type and status, across every process: what the queue-depth gauge shows. One
 * grouped read of the open rows only, which the partial index `jobs_open_idx` holds.
 */
@Injectable()
export class OpenJobCounts {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async count(): Promise<OpenJobCount[]> {
    const rows: Array<{ job_type: string; status: OpenJobStatus; count: string | number }> = await this.ds.query(
      `SELECT job_type, status, count(*) AS count FROM jobs WHERE status IN ('pending', 'running') GROUP BY job_type, status`,
    );
    return rows.map((r) => ({ type: r.job_type, status: r.status, count: Number(r.count) }));
  }
}

/**
 * The failure hooks (refunds) still owed, across every process: what the owed-hook gauges show. One
 * aggregate over the owed rows only: its condition is the predicate of the partial index
 * `jobs_owed_hooks_idx` (migration 1733310000000), which holds those rows and nothing else (none,
 * as a rule). A hook is owed since its job failed (`finished_at`, written in the same statement).
 */
@Injectable()
export class OwedFailureHookCounts {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async count(): Promise<OwedFailureHooks> {
    const rows: Array<{ count: string | number; oldest_age_seconds: string | number | null }> = await this.ds.query(
      `SELECT count(*) AS count, EXTRACT(EPOCH FROM now() - min(finished_at)) AS oldest_age_seconds
         FROM jobs WHERE failure_hook_due_at IS NOT NULL`,
    );
    const row = rows[0];
    const count = Number(row?.count ?? 0);
    const age = row?.oldest_age_seconds == null ? 0 : Number(row.oldest_age_seconds);
    return { count, oldestAgeSeconds: count > 0 ? Math.max(0, age) : 0 };
  }
}
