import { describe, expect, it } from '@jest/globals';
import type { NewOutboxEvent } from '../../../../core/index.js';
import type { Tx } from '../../../../platform/database/index.js';
import type { JobRecord, JobSettlement } from '../../../../platform/queue/index.js';
import type { ContentItem, StoredMedia } from '../../domain/content-item.js';
import { oneItemStore } from '../spec-fixtures.js';
import { GenerationSteps } from './generation-steps.js';

const WS = 'ws_1';
const JOB = { id: 'job_1', workspaceId: WS, contentId: 'cnt_1', jobType: 'generate_video', attempts: 1, payload: {} } as unknown as JobRecord<'generate_video'>;
const VIDEO: StoredMedia = { kind: 'video', key: 'content/cnt_1/job_1.mp4', contentType: 'video/mp4', thumbnailKey: 'content/cnt_1/job_1.jpg' } as StoredMedia;

/** Finishing against stand-ins: one generating item, transactions that hand out a marker, a job store that records its settlements. */
function setUp(overrides: Partial<ContentItem> = {}) {
  const { store, tx, ds, items } = oneItemStore({ workspaceId: WS, platform: 'tiktok', kind: 'video' }, { status: 'generating', jobId: JOB.id, caption: 'given', ...overrides });
  const characters = { find: async () => ({ autopilot: false }), addContent: async () => undefined };
  const views = { changed: async () => undefined };
  const media = { removeReplaced: async () => undefined };
  const outbox = { record: async (_t: Tx, _e: NewOutboxEvent) => undefined };
  const settled: Array<{ tx: Tx; workspaceId: string; id: string; settlement: JobSettlement; itemStatus: string }> = [];
  const jobs = {
    settle: async (t: Tx, workspaceId: string, id: string, settlement: JobSettlement) => {
      settled.push({ tx: t, workspaceId, id, settlement, itemStatus: store.current.status });
      return true;
    },
  };
  const steps = new GenerationSteps(ds, items as never, characters as never, {} as never, media as never, views as never, outbox as never, jobs as never);
  return { steps, settled, tx, store };
}

describe('GenerationSteps.finish', () => {
  it('ends the job completed in the transaction that makes the item ready, with the result it returns and the step\'s notes', async () => {
    const { steps, settled, tx, store } = setUp();
    const result = await steps.finish(JOB, [VIDEO], undefined, { lora_id: 'lora_1', route: 'cloud' });
    expect(store.current.status).toBe('ready');
    expect(settled).toEqual([{ tx, workspaceId: WS, id: JOB.id, settlement: { status: 'completed', result }, itemStatus: 'ready' }]);
    expect(result).toMatchObject({ content_id: 'cnt_1', status: 'ready', media_count: 1, lora_id: 'lora_1', route: 'cloud' });
  });

  it('settles nothing for a job the item no longer waits for, or one already finished', async () => {
    const superseded = setUp({ jobId: 'job_2' });
    expect(await superseded.steps.finish(JOB, [VIDEO])).toEqual({ content_id: 'cnt_1', skipped: 'superseded' });
    const finished = setUp({ status: 'ready', mediaJobId: JOB.id });
    await finished.steps.finish(JOB, [VIDEO]);
    expect([...superseded.settled, ...finished.settled]).toEqual([]);
  });
});
