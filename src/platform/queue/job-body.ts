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

/**
 * A file a job made, as its result row keeps it: the storage key, never a URL (a signed URL
 * expires, a row does not). `jobOutputs` writes these; the wire shows `{kind, url}` signed afresh.
 */
export interface StoredJobOutput {
  kind: string;
  key: string;
}

/** Signs a storage key into a URL that serves it for a while (the storage's `MediaUrls`). */
export interface JobOutputSigner {
  sign(key: string): string;
}

/** The result field that lists what a job made (keys in the row, signed URLs on the wire). */
const OUTPUTS = 'outputs';

/** A result's `outputs` entry for what a job made; handlers spread it into their result. */
export function jobOutputs(outputs: readonly StoredJobOutput[]): { outputs: StoredJobOutput[] } {
  return { outputs: outputs.map(({ kind, key }) => ({ kind, key })) };
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/**
 * The job's wire shape. With `urls`, the files it made appear as `result.outputs: [{kind, url}]`;
 * without (only where the job was just created, so it made nothing yet) they are left out, so a
 * storage key never reaches a client.
 */
export function toJobBody(job: JobRecord, urls?: JobOutputSigner): JobBody {
  return {
    id: job.id,
    job_type: job.jobType,
    status: job.status,
    progress: job.progress,
    character_id: job.characterId,
    content_id: job.contentId,
    result: job.result ? resultBody(job.result, urls) : null,
    error: job.error ? { code: job.error.code, message: job.error.message } : null,
    created_at: job.createdAt.toISOString(),
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
  };
}

function resultBody(result: Record<string, unknown>, urls: JobOutputSigner | undefined): Record<string, unknown> {
  const { [OUTPUTS]: stored, ...rest } = result;
  if (!Array.isArray(stored)) return result;
  if (!urls) return rest;
  const outputs = (stored as StoredJobOutput[]).filter((o) => typeof o?.key === 'string').map((o) => ({ kind: o.kind, url: urls.sign(o.key) }));
  return { ...rest, [OUTPUTS]: outputs };
}
