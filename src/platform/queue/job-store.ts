import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { jsonParam, SqlParams, type Tx } from '../database/index.js';
import type { JobType } from './job-types.js';
import type { JobFailure, JobFailureHookFn, JobRecord, JobStatus } from './job.types.js';

/**
 * Reads and writes job rows. Every state change is a conditional update, so a re-delivered or
 * concurrent message can never move a finished job again.
 */
export abstract class JobStore {
  abstract insert(tx: Tx, job: JobRecord): Promise<void>;
  abstract findInWorkspace(workspaceId: string, id: string): Promise<JobRecord | null>;
  abstract findManyInWorkspace(workspaceId: string, ids: readonly string[], tx?: Tx): Promise<JobRecord[]>;
  /** pending|running → running, attempts+1; null when missing or already finished. */
  abstract claim(id: string): Promise<JobRecord | null>;
  /** Raises progress of a running job; null when it was already at or past `progress`. */
  abstract advance(id: string, progress: number): Promise<JobRecord | null>;
  abstract complete(id: string, result: Record<string, unknown> | null): Promise<JobRecord | null>;
  /** running → failed, running `hook` in the same transaction; null when the job was not running. */
  abstract fail(id: string, error: JobFailure, hook?: JobFailureHookFn): Promise<JobRecord | null>;
  /** Ids of pending or running jobs created before `before`, oldest first. */
  abstract openJobIds(before: Date, limit: number): Promise<string[]>;
}

interface JobRow {
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
function fromRow(r: JobRow): JobRecord {
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

@Injectable()
export class TypeOrmJobStore extends JobStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {
    super();
  }

  /** Plain SQL: every paid order inserts one, and the entity insert builder cost more than the statement. */
  async insert(tx: Tx, job: JobRecord): Promise<void> {
    const p = new SqlParams();
    await tx.query(jobInsertSql(p, job), p.values);
  }

  async findInWorkspace(workspaceId: string, id: string): Promise<JobRecord | null> {
    const rows: JobRow[] = await this.ds.query('SELECT * FROM jobs WHERE id = $1 AND workspace_id = $2', [id, workspaceId]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async findManyInWorkspace(workspaceId: string, ids: readonly string[], tx?: Tx): Promise<JobRecord[]> {
    if (ids.length === 0) return [];
    const rows: JobRow[] = await (tx ?? this.ds).query('SELECT * FROM jobs WHERE workspace_id = $1 AND id = ANY($2)', [workspaceId, [...ids]]);
    return rows.map(fromRow);
  }

  claim(id: string): Promise<JobRecord | null> {
    return this.update(
      this.ds,
      `status = 'running', attempts = attempts + 1, started_at = COALESCE(started_at, now())`,
      `status IN ('pending', 'running')`,
      [id],
    );
  }

  advance(id: string, progress: number): Promise<JobRecord | null> {
    return this.update(this.ds, 'progress = $2', `status = 'running' AND progress < $2`, [id, progress]);
  }

  complete(id: string, result: Record<string, unknown> | null): Promise<JobRecord | null> {
    return this.update(
      this.ds,
      `status = 'completed', progress = 100, result = $2::jsonb, error = NULL, finished_at = now()`,
      `status = 'running'`,
      [id, jsonParam(result)],
    );
  }

  fail(id: string, error: JobFailure, hook?: JobFailureHookFn): Promise<JobRecord | null> {
    return this.ds.transaction(async (tx) => {
      const failed = await this.update(
        tx,
        `status = 'failed', error = $2::jsonb, finished_at = now()`,
        `status = 'running'`,
        [id, JSON.stringify(error)],
      );
      if (failed && hook) await hook(tx, failed);
      return failed;
    });
  }

  async openJobIds(before: Date, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.ds.query(
      `SELECT id FROM jobs WHERE status IN ('pending', 'running') AND created_at < $1 ORDER BY created_at LIMIT $2`,
      [before, limit],
    );
    return rows.map((r) => r.id);
  }

  /** An UPDATE … RETURNING wrapped in a SELECT, so the driver answers plain rows. */
  private async update(db: DataSource | Tx, set: string, condition: string, params: unknown[]): Promise<JobRecord | null> {
    const rows: JobRow[] = await db.query(
      `WITH changed AS (UPDATE jobs SET ${set} WHERE id = $1 AND ${condition} RETURNING *) SELECT * FROM changed`,
      params,
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }
}
