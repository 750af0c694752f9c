import { describe, expect, it } from '@jest/globals';
import { JOB_TYPES } from './job-types.js';
import type { Tx } from './platform/database/index.js';
import type { JobContext, Jobs, NewJob } from './platform/queue/index.js';
import { JobHandler } from './platform/queue/index.js';

/**
 * The job registry's typing. The `@ts-expect-error` lines are checked by `npm run typecheck`: if any
 * of them compiled (a payload of the wrong type accepted), the type check would fail.
 */
function wrongPayloadsDoNotCompile(jobs: Jobs, tx: Tx): void {
  const ok: NewJob = { workspaceId: 'ws_1', jobType: 'generate_image', payload: { credits: 3, images: 1 } };
  void jobs.create(tx, ok);
  // @ts-expect-error: an image job's payload needs its image count
  void jobs.create(tx, { workspaceId: 'ws_1', jobType: 'generate_image', payload: { credits: 3 } });
  // @ts-expect-error: a motion transfer's payload is not an image job's
  void jobs.create(tx, { workspaceId: 'ws_1', jobType: 'generate_image', payload: { motion_transfer_id: 'mt_1', credits: 3 } });
  // @ts-expect-error: no context declares this job type
  void jobs.create(tx, { workspaceId: 'ws_1', jobType: 'generate_pdf', payload: {} });
  // @ts-expect-error: a type and the payload of another do not make a job, even typed loosely
  const mixed: NewJob = { workspaceId: 'ws_1', jobType: 'recompute_face_embedding', payload: { credits: 3 } };
  void mixed;
  // @ts-expect-error: a sync names platforms, not posts
  void jobs.create(tx, { workspaceId: 'ws_1', jobType: 'sync_analytics', payload: { trigger: 'scheduled', posts: ['sp_1'] } });
  // @ts-expect-error: a domain check names the claim by its token
  void jobs.create(tx, { workspaceId: 'ws_1', jobType: 'verify_custom_domain', payload: { trigger: 'scheduled' } });
}

class WrongHandler {
  // @ts-expect-error: a week plan's handler cannot take an image job's context
  @JobHandler('generate_week')
  async run(ctx: JobContext<'generate_image'>): Promise<void> {
    void ctx.job.payload.images;
  }
}

describe('the service job types', () => {
  it('lists every declared type once', () => {
    expect([...JOB_TYPES].sort()).toEqual(['generate_image', 'generate_video', 'generate_week', 'motion_transfer', 'recompute_face_embedding', 'train_lora', 'clone_voice', 'generate_speech', 'talking_head', 'sync_analytics', 'verify_custom_domain', 'build_account_export'].sort());
    expect(new Set(JOB_TYPES).size).toBe(JOB_TYPES.length);
    expect(typeof wrongPayloadsDoNotCompile).toBe('function');
    expect(WrongHandler).toBeDefined();
  });
});
