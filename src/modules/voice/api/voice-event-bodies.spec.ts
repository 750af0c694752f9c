import { describe, expect, it } from '@jest/globals';
import { AppError, type OutboxEvent } from '../../../core/index.js';
import { OutboxEventBodies } from '../../../platform/outbox/index.js';
import type { VoiceService, VoiceView } from '../application/voice.service.js';
import { DEFAULT_SETTINGS } from '../domain/voice.js';
import { toVoiceBody } from './dto/voice.body.js';
import { VoiceEventBodies } from './voice-event-bodies.js';

const WS = 'ws_1';
const at = new Date('2026-11-27T10:00:00Z');
const view: VoiceView = {
  characterId: 'char_1', voiceId: 'el_voice_9', name: 'Zara', category: 'cloned',
  record: {
    id: 'voice_1', workspaceId: WS, characterId: 'char_1', name: 'Zara', cloneVoiceId: 'el_voice_9', status: 'ready', settings: DEFAULT_SETTINGS, sampleCount: 2,
    sampleKeys: [], error: null, jobId: 'job_1', creditsCharged: 100, createdAt: at, updatedAt: at,
  },
  settings: { ...DEFAULT_SETTINGS, voiceId: 'el_voice_9', modelId: 'eleven_multilingual_v2' },
};

function setUp() {
  const bodies = new OutboxEventBodies();
  const voices = {
    view: async (ws: string, characterId: string) => {
      if (ws !== WS || characterId !== 'char_1') throw AppError.notFound('Character');
      return view;
    },
  } as unknown as VoiceService;
  new VoiceEventBodies(bodies, voices).onModuleInit();
  return bodies;
}

const event = (characterId: string, workspaceId = WS) =>
  ({ id: 'evt_1', type: 'voice.ready', workspaceId, payload: { characterId }, occurredAt: new Date() }) as OutboxEvent;

describe('voice event bodies', () => {
  it('render the voice as GET /characters/{id}/voice answers it (its builder)', async () => {
    expect(await setUp().render(event('char_1'))).toEqual(toVoiceBody(view));
  });

  it('answer null for a character gone, or of another workspace', async () => {
    const bodies = setUp();
    expect(await bodies.render(event('char_2'))).toBeNull();
    expect(await bodies.render(event('char_1', 'ws_2'))).toBeNull();
  });
});
