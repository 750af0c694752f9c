import { describe, expect, it } from '@jest/globals';
import { toJobBody } from './job-body.js';
import type { JobRecord } from './job.types.js';

describe('toJobBody', () => {
  it('maps a job row to the snake_case wire shape with ISO UTC timestamps and no internals', () => {
    const job: JobRecord = {
      id: 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      workspaceId: 'ws_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      jobType: 'generate_image',
      status: 'failed',
      progress: 40,
      characterId: 'char_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      contentId: null,
      payload: { secret_prompt: 'internal' } as unknown as JobRecord['payload'],
      result: null,
      error: { code: 'upstream_failed', message: 'Provider down.', ...({ stack: 'at x' } as object) },
      attempts: 2,
      createdAt: new Date(Date.UTC(2024, 10, 21, 10, 0, 0)),
      startedAt: new Date(Date.UTC(2024, 10, 21, 10, 0, 1)),
      finishedAt: null,
    };
    expect(toJobBody(job)).toEqual({
      id: 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      job_type: 'generate_image',
      status: 'failed',
      progress: 40,
      character_id: 'char_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      content_id: null,
      result: null,
      error: { code: 'upstream_failed', message: 'Provider down.' },
      created_at: '2024-11-21T10:00:00.000Z',
      started_at: '2024-11-21T10:00:01.000Z',
      finished_at: null,
    });
  });
});
