import type { JobFailure, JobRecord, JobStatus } from './job.types.js';

/** A job on the wire (contract §6). */
export interface JobBody {
  id: string;
  job_type: string;
  status: JobStatus;
  progress: number;
  character_id: string | null;
  content_id: string | null;
  result: Record<string, unknown> | null;
  error: JobFailure | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toJobBody(job: JobRecord): JobBody {
  return {
    id: job.id,
    job_type: job.jobType,
    status: job.status,
    progress: job.progress,
    character_id: job.characterId,
    content_id: job.contentId,
    result: job.result,
    error: job.error ? { code: job.error.code, message: job.error.message } : null,
    created_at: job.createdAt.toISOString(),
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
  };
}
