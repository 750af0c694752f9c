import { describe, expect, it } from '@jest/globals';
import { AppError, type OutboxEvent } from '../../../core/index.js';
import { OutboxEventBodies } from '../../../platform/outbox/index.js';
import type { LoraService, LoraView } from '../application/lora.service.js';
import type { Lora } from '../domain/lora.js';
import { toLoraEnvelope } from './dto/lora.body.js';
import { LoraEventBodies } from './lora-event-bodies.js';

const WS = 'ws_1';
const at = new Date('2026-11-27T10:00:00Z');
const lora: Lora = {
  id: 'lora_1', workspaceId: WS, characterId: 'char_1', status: 'ready', baseModel: 'flux-dev', trainingSteps: 1000, loraRank: 16, triggerWord: 'ZARA_K7Q2',
  progress: 100, jobId: 'job_1', provider: 'local', providerTrainingId: 't1', weightsUrl: null, providerVersion: null, style: null, error: null,
  creditsCharged: 500, trainedAt: at, createdAt: at, updatedAt: at,
};
const view: LoraView = { characterId: 'char_1', lora, imageCount: 12, job: null };

function setUp() {
  const bodies = new OutboxEventBodies();
  const loras = {
    view: async (ws: string, characterId: string) => {
      if (ws !== WS || characterId !== 'char_1') throw AppError.notFound('Character');
      return view;
    },
  } as unknown as LoraService;
  new LoraEventBodies(bodies, loras).onModuleInit();
  return bodies;
}

const event = (type: 'lora.ready' | 'lora.failed', characterId: string, workspaceId = WS) =>
  ({ id: 'evt_1', type, workspaceId, payload: { characterId }, occurredAt: new Date() }) as OutboxEvent;

describe('LoRA event bodies', () => {
  it('render the LoRA as GET /characters/{id}/lora answers it (its builder), for both types', async () => {
    const bodies = setUp();
    expect(await bodies.render(event('lora.ready', 'char_1'))).toEqual(toLoraEnvelope(view).lora);
    expect(await bodies.render(event('lora.failed', 'char_1'))).toEqual(toLoraEnvelope(view).lora);
  });

  it('answer null for a character gone, or of another workspace', async () => {
    const bodies = setUp();
    expect(await bodies.render(event('lora.ready', 'char_2'))).toBeNull();
    expect(await bodies.render(event('lora.ready', 'char_1', 'ws_2'))).toBeNull();
  });
});
