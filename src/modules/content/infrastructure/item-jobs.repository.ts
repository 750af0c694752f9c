import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';
import type { JobFailure, JobRecord, JobStatus } from '../../../platform/queue/index.js';

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

/**
 * Reads the job rows items point at, many at once, so a page of items shows each item's job
 * without one query per item. Read-only: the queue platform owns these rows.
 */
@Injectable()
export class ItemJobsRepository {
  async byIds(m: Tx, workspaceId: string, ids: ReadonlyArray<string | null>): Promise<Map<string, JobRecord>> {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    if (wanted.length === 0) return new Map();
    const rows: JobRow[] = await m.query('SELECT * FROM jobs WHERE workspace_id = $1 AND id = ANY($2)', [workspaceId, wanted]);
    return new Map(rows.map((r) => [r.id, toRecord(r)]));
  }
}

function toRecord(r: JobRow): JobRecord {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    jobType: r.job_type,
    status: r.status,
    progress: r.progress,
    characterId: r.character_id,
    contentId: r.content_id,
    payload: r.payload ?? {},
    result: r.result,
    error: r.error,
    attempts: r.attempts,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}
