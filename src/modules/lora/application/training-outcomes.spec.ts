import { beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { NewOutboxEvent } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { Outbox } from '../../../platform/outbox/index.js';
import type { Lora, LoraStatus } from '../domain/lora.js';
import type { LoraRepository } from '../infrastructure/lora.repository.js';
import type { TrainingState } from './ports/lora-trainer.js';
import { TrainingOutcomes } from './training-outcomes.js';

/** The outcomes against one LoRA row in memory, whose conditional move is the repository's. */
function setUp() {
  let row: Lora = {
    id: 'lora_1', workspaceId: 'ws_1', characterId: 'char_1', status: 'training', baseModel: 'flux-dev', trainingSteps: 1000, loraRank: 16,
    triggerWord: 'ZARA_K7Q2', progress: 10, jobId: 'job_1', provider: 'local', providerTrainingId: 't1', weightsUrl: null, providerVersion: null,
    style: null, error: null, creditsCharged: 500, trainedAt: null, createdAt: new Date(), updatedAt: new Date(),
  };
  const tx = { in: 'the outcome transaction' } as unknown as Tx;
  const ds = { manager: {}, transaction: (work: (t: Tx) => Promise<unknown>) => work(tx) } as unknown as DataSource;
  const loras = {
    move: async (_tx: Tx, _ws: string, _id: string, _job: string, from: readonly LoraStatus[], to: LoraStatus, changes: Partial<Lora>) => {
      if (!from.includes(row.status)) return null;
      row = { ...row, ...changes, status: to };
      return { ...row };
    },
    advance: async () => true,
  } as unknown as LoraRepository;
  const recorded: Array<{ tx: Tx; event: NewOutboxEvent }> = [];
  const outbox = { record: async (t: Tx, event: NewOutboxEvent) => void recorded.push({ tx: t, event }) } as unknown as Outbox;
  const none = async () => undefined;
  const outcomes = new TrainingOutcomes(ds, loras, { setTraining: none } as never, { credit: none } as never, { settle: none } as never, outbox);
  return { outcomes, recorded, tx, lora: () => ({ ...row }) };
}

const SUCCEEDED: TrainingState = { status: 'succeeded', weights: { weightsUrl: 'https://x/w.safetensors', version: 'v1', style: null } };

describe('TrainingOutcomes: lora.ready and lora.failed', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('records lora.ready in the transaction that makes the LoRA ready, once however often the end is reported', async () => {
    const { outcomes, recorded, tx, lora } = setUp();
    expect(await outcomes.apply(lora(), SUCCEEDED)).toBe(true);
    expect(await outcomes.apply(lora(), SUCCEEDED)).toBe(false);
    expect(recorded).toEqual([{ tx, event: { type: 'lora.ready', workspaceId: 'ws_1', payload: { characterId: 'char_1' } } }]);
  });

  it('records lora.failed in the failing transaction (with the refund), once; nothing for a failure after it ended', async () => {
    const a = setUp();
    expect(await a.outcomes.apply(a.lora(), { status: 'failed', error: 'oom' })).toBe(true);
    expect(await a.outcomes.failNow(a.lora(), { code: 'training_timeout', message: 'late' })).toBe(false);
    expect(a.recorded).toEqual([{ tx: a.tx, event: { type: 'lora.failed', workspaceId: 'ws_1', payload: { characterId: 'char_1' } } }]);
    const b = setUp();
    await b.outcomes.apply(b.lora(), SUCCEEDED);
    expect(await b.outcomes.failInTx(b.tx, b.lora(), { code: 'job_failed', message: 'x' })).toBe(false);
    expect(b.recorded.map((r) => r.event.type)).toEqual(['lora.ready']);
  });

  it('records nothing for progress', async () => {
    const { outcomes, recorded, lora } = setUp();
    await outcomes.apply(lora(), { status: 'processing', progress: 50 });
    expect(recorded).toEqual([]);
  });
});
