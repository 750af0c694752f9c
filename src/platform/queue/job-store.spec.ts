import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { NewOutboxEvent } from '../../core/index.js';
import type { Tx } from '../database/index.js';
import type { Outbox } from '../outbox/outbox.js';
import { jobEndEvent, TypeOrmJobStore, type JobRow } from './job-store.js';

const WS = 'ws_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const JOB = 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV';

function row(status: JobRow['status']): JobRow {
  const at = new Date('2026-11-27T10:00:00.000Z');
  return {
    id: JOB, workspace_id: WS, job_type: 'generate_image', status, progress: 100, character_id: null, content_id: null, payload: {},
    result: null, error: null, attempts: 1, created_at: at, started_at: at, finished_at: at,
  };
}

/**
 * The SQL store against a stand-in database: `answer` is what every UPDATE answers (no row = the
 * run lost its claim, or the job already ended). Records which transaction each event went into.
 */
function setUp(answer: readonly object[]) {
  const txs: Tx[] = [];
  const recorded: Array<{ tx: Tx; event: NewOutboxEvent }> = [];
  const query = async () => answer;
  const ds = {
    query,
    transaction: async (work: (tx: Tx) => Promise<unknown>) => {
      const tx = { query } as unknown as Tx;
      txs.push(tx);
      return work(tx);
    },
  } as unknown as DataSource;
  const outbox = { record: async (tx: Tx, event: NewOutboxEvent) => void recorded.push({ tx, event }) } as unknown as Outbox;
  return { store: new TypeOrmJobStore(ds, outbox), txs, recorded };
}

describe('job end events (job.completed, job.failed)', () => {
  it('are recorded in the transaction that completes the job, naming the job and its type', async () => {
    const { store, txs, recorded } = setUp([row('completed')]);
    await store.complete(JOB, 1, { ok: true });
    expect(recorded).toEqual([{ tx: txs[0], event: { type: 'job.completed', workspaceId: WS, payload: { jobId: JOB, jobType: 'generate_image' } } }]);
  });

  it('are recorded in the transaction that fails the job, with its failure hook (the refund)', async () => {
    const { store, txs, recorded } = setUp([row('failed')]);
    const hookTx: Tx[] = [];
    await store.fail(JOB, 1, { code: 'upstream_failed', message: 'no' }, async (tx) => void hookTx.push(tx));
    expect(recorded).toEqual([{ tx: txs[0], event: { type: 'job.failed', workspaceId: WS, payload: { jobId: JOB, jobType: 'generate_image' } } }]);
    expect(hookTx).toEqual([txs[0]]);
  });

  it('are recorded when the job fails owing its hook, in the transaction of that failure', async () => {
    const { store, txs, recorded } = setUp([row('failed')]);
    await store.failOwingHook(JOB, 1, { code: 'upstream_failed', message: 'no' }, 2_000);
    expect(recorded).toEqual([{ tx: txs[0], event: { type: 'job.failed', workspaceId: WS, payload: { jobId: JOB, jobType: 'generate_image' } } }]);
  });

  it('are recorded in the caller\'s transaction when the work\'s owner settles the job', async () => {
    const { store, recorded } = setUp([{ id: JOB, job_type: 'train_lora' }]);
    const tx = { query: async () => [{ id: JOB, job_type: 'train_lora' }] } as unknown as Tx;
    expect(await store.settle(tx, WS, JOB, { status: 'failed', error: { code: 'upstream_failed', message: 'no' } })).toBe(true);
    expect(await store.settle(tx, WS, JOB, { status: 'completed', result: {} })).toBe(true);
    expect(recorded.map((r) => [r.tx, r.event.type, r.event.payload])).toEqual([
      [tx, 'job.failed', { jobId: JOB, jobType: 'train_lora' }],
      [tx, 'job.completed', { jobId: JOB, jobType: 'train_lora' }],
    ]);
  });

  it('are not recorded when nothing ended: a run that lost its claim, a job already ended, no failure hook run', async () => {
    const { store, recorded } = setUp([]);
    let hookRan = false;
    expect(await store.complete(JOB, 1, null)).toBeNull();
    expect(await store.fail(JOB, 1, { code: 'x', message: 'y' }, async () => void (hookRan = true))).toBeNull();
    expect(await store.failOwingHook(JOB, 1, { code: 'x', message: 'y' }, 2_000)).toBeNull();
    expect(await store.settle({ query: async () => [] } as unknown as Tx, WS, JOB, { status: 'completed', result: {} })).toBe(false);
    expect(recorded).toEqual([]);
    expect(hookRan).toBe(false);
  });

  it('exist only for an end: completed or failed, not cancelled, pending or running', () => {
    const job = { id: JOB, workspaceId: WS, jobType: 'generate_image' as never };
    expect(jobEndEvent({ ...job, status: 'completed' })?.type).toBe('job.completed');
    expect(jobEndEvent({ ...job, status: 'failed' })?.type).toBe('job.failed');
    for (const status of ['cancelled', 'pending', 'running'] as const) expect(jobEndEvent({ ...job, status })).toBeNull();
  });
});
