import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../../config/index.js';
import type { JobContext, JobRecord } from '../../../platform/queue/index.js';
import type { Lora, LoraFailure } from '../domain/lora.js';
import type { LoraRepository } from '../infrastructure/lora.repository.js';
import { LoraTrainer, type TrainingRequest, type TrainingState } from './ports/lora-trainer.js';
import { TrainLoraJob } from './train-lora.job.js';
import type { TrainingOutcomes } from './training-outcomes.js';
import type { TrainingSet } from './training-set.js';

const JOB_ID = 'job_01HZX6FQJ5N6E7T2M3A4B5C6D7';
const LORA_ID = 'lora_01HZX6FQJ5N6E7T2M3A4B5C6D7';

/** A trainer whose trainings end when the test says; it can forget them, as the offline one does on a restart. */
class ScriptedTrainer extends LoraTrainer {
  readonly provider = 'local' as const;
  readonly started: TrainingRequest[] = [];
  readonly cancelled: string[] = [];
  readonly states = new Map<string, TrainingState | null>();

  async start(req: TrainingRequest): Promise<{ providerTrainingId: string }> {
    this.started.push(req);
    const id = `t${this.started.length}`;
    this.states.set(id, { status: 'processing', progress: 10 });
    return { providerTrainingId: id };
  }

  async status(id: string): Promise<TrainingState | null> {
    return this.states.has(id) ? this.states.get(id)! : null;
  }

  async cancel(id: string): Promise<void> {
    this.cancelled.push(id);
  }
}

/** The LoRA row in memory, with the outcomes' conditional moves over it. */
function world(trainer: ScriptedTrainer, start: Partial<Lora> = {}) {
  let row: Lora | null = {
    id: LORA_ID, workspaceId: 'ws_1', characterId: 'char_1', status: 'queued', baseModel: 'flux-dev', trainingSteps: 1000, loraRank: 16,
    triggerWord: 'ZARA_K7Q2', progress: 0, jobId: JOB_ID, provider: 'local', providerTrainingId: null, weightsUrl: null, providerVersion: null,
    style: null, error: null, creditsCharged: 500, trainedAt: null, createdAt: new Date(), updatedAt: new Date(), ...start,
  };
  const refunds: string[] = [];
  const active = () => row !== null && (row.status === 'queued' || row.status === 'training');
  const fail = (failure: LoraFailure) => {
    if (!active()) return false;
    row = { ...row!, status: 'failed', error: failure };
    refunds.push(row.jobId);
    return true;
  };
  const outcomes = {
    started: async (_l: Lora, providerTrainingId: string) => {
      if (row?.status !== 'queued') return false;
      row = { ...row, status: 'training', providerTrainingId };
      return true;
    },
    restarted: async (_l: Lora, providerTrainingId: string) => {
      if (row?.status !== 'training') return false;
      row = { ...row, providerTrainingId, progress: 0 };
      return true;
    },
    apply: async (_l: Lora, state: TrainingState) => {
      if (!active()) return false;
      if (state.status === 'succeeded') row = { ...row!, status: 'ready', progress: 100, style: state.weights.style };
      else if (state.status === 'failed') return fail({ code: 'training_failed', message: state.error });
      else if (state.status === 'processing' && state.progress !== null) row = { ...row!, progress: Math.max(row!.progress, state.progress) };
      return true;
    },
    failNow: async (_l: Lora, failure: LoraFailure) => fail(failure),
    failInTx: async (_tx: unknown, _l: Lora, failure: LoraFailure) => fail(failure),
  } as unknown as TrainingOutcomes;
  const repo = { find: async () => (row ? { ...row } : null) } as unknown as LoraRepository;
  const config = { lora: { pollIntervalMs: 1, checkIntervalMs: 1, timeoutMs: 60_000 } } as unknown as AppConfig;
  const set = { load: async () => [] } as unknown as TrainingSet;
  const job = new TrainLoraJob({ manager: {} } as DataSource, repo, trainer, outcomes, set, config);
  return { job, refunds, row: () => row, setRow: (r: Lora | null) => (row = r) };
}

function context(opts: { startedAt?: Date } = {}): JobContext<'train_lora'> & { reported: number[] } {
  const reported: number[] = [];
  const job = {
    id: JOB_ID, workspaceId: 'ws_1', jobType: 'train_lora', status: 'running', progress: 0, characterId: 'char_1', contentId: null,
    payload: { lora_id: LORA_ID, credits: 500 }, result: null, error: null, attempts: 1, createdAt: new Date(), startedAt: opts.startedAt ?? new Date(), finishedAt: null,
  } as JobRecord<'train_lora'>;
  return { job, signal: new AbortController().signal, reported, progress: async (p: number) => void reported.push(p) };
}

describe('train_lora', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn']));

  it('starts the training once, reports its progress, and ends with the LoRA ready', async () => {
    const trainer = new ScriptedTrainer();
    const w = world(trainer);
    const ctx = context();
    setTimeout(() => trainer.states.set('t1', { status: 'succeeded', weights: { weightsUrl: null, version: null, style: [0.5] } }), 20);
    const result = await w.job.run(ctx);
    expect(trainer.started).toHaveLength(1);
    expect(result).toEqual({ lora_id: LORA_ID, status: 'ready', trigger_word: 'ZARA_K7Q2', provider_version: null });
    expect(w.row()).toMatchObject({ status: 'ready', providerTrainingId: 't1', style: [0.5] });
    expect(ctx.reported).toContain(10);
    expect(w.refunds).toEqual([]);
  });

  it('re-delivered with the provider’s id on the row, waits on that training instead of starting another', async () => {
    const trainer = new ScriptedTrainer();
    trainer.states.set('prov-1', { status: 'succeeded', weights: { weightsUrl: 'https://w', version: null, style: null } });
    const w = world(trainer, { status: 'training', providerTrainingId: 'prov-1' });
    await w.job.run(context());
    expect(trainer.started).toHaveLength(0);
    expect(w.row()?.status).toBe('ready');
  });

  it('starts again a training its trainer forgot (the offline trainer after a restart), under the new id', async () => {
    const trainer = new ScriptedTrainer();
    const w = world(trainer, { status: 'training', providerTrainingId: 'lost' });
    setTimeout(() => trainer.states.set('t1', { status: 'succeeded', weights: { weightsUrl: null, version: null, style: [1] } }), 20);
    await w.job.run(context());
    expect(trainer.started).toHaveLength(1);
    expect(w.row()).toMatchObject({ status: 'ready', providerTrainingId: 't1' });
  });

  it('fails the job when the training failed (the refund was the outcome’s, once)', async () => {
    const trainer = new ScriptedTrainer();
    const w = world(trainer);
    setTimeout(() => trainer.states.set('t1', { status: 'failed', error: 'CUDA out of memory' }), 20);
    await expect(w.job.run(context())).rejects.toMatchObject({ code: 'upstream_failed' });
    expect(w.row()).toMatchObject({ status: 'failed', error: { code: 'training_failed' } });
    expect(w.refunds).toEqual([JOB_ID]);
    // The runner's failure hook comes after: the LoRA has already ended, so nothing is refunded again.
    await w.job.onFailed({} as never, { ...context().job, error: { code: 'upstream_failed', message: 'x' } });
    expect(w.refunds).toEqual([JOB_ID]);
  });

  it('stops waiting and cancels at the provider when the LoRA is deleted (or its character) mid-training', async () => {
    const trainer = new ScriptedTrainer();
    const w = world(trainer);
    setTimeout(() => w.setRow(null), 20);
    const result = await w.job.run(context());
    expect(result).toEqual({ lora_id: LORA_ID, cancelled: true });
    expect(trainer.cancelled).toEqual(['t1']);
    expect(w.refunds).toEqual([]);
  });

  it('gives up past the timeout: cancelled at the provider, failed and refunded once', async () => {
    const trainer = new ScriptedTrainer();
    const w = world(trainer);
    await expect(w.job.run(context({ startedAt: new Date(Date.now() - 120_000) }))).rejects.toMatchObject({ code: 'upstream_failed' });
    expect(trainer.cancelled).toEqual(['t1']);
    expect(w.row()).toMatchObject({ status: 'failed', error: { code: 'training_timeout' } });
    expect(w.refunds).toEqual([JOB_ID]);
  });

  it('a start that throws fails the job; the failure hook fails and refunds the queued LoRA', async () => {
    const trainer = new ScriptedTrainer();
    trainer.start = async () => {
      throw new Error('network down');
    };
    const w = world(trainer);
    await expect(w.job.run(context())).rejects.toThrow('network down');
    await w.job.onFailed({} as never, { ...context().job, error: { code: 'job_failed', message: 'The job failed unexpectedly.' } });
    expect(w.row()).toMatchObject({ status: 'failed', error: { code: 'job_failed' } });
    expect(w.refunds).toEqual([JOB_ID]);
  });
});
