import { beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { NewOutboxEvent } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { Outbox } from '../../../platform/outbox/index.js';
import type { JobContext, JobSettlement } from '../../../platform/queue/index.js';
import { DEFAULT_SETTINGS } from '../domain/voice.js';
import type { StoredVoice } from '../infrastructure/voice.repository.js';
import { VoiceJobs } from './voice.jobs.js';

/** The clone job against stand-ins: one voice record whose end is conditional, as the repository's is. */
function setUp() {
  let voice: StoredVoice = {
    id: 'voice_1', workspaceId: 'ws_1', characterId: 'char_1', name: 'Zara', cloneVoiceId: null, status: 'cloning', settings: DEFAULT_SETTINGS,
    sampleCount: 1, sampleKeys: ['voices/char_1/s1.mp3'], error: null, jobId: 'job_1', creditsCharged: 100, createdAt: new Date(), updatedAt: new Date(),
  };
  const tx = { in: 'the clone transaction' } as unknown as Tx;
  const ds = { manager: { outside: true }, transaction: (work: (t: Tx) => Promise<unknown>) => work(tx) } as unknown as DataSource;
  const ends: unknown[] = [];
  const voices = {
    findById: async () => ({ ...voice }),
    endClone: async (m: Tx, _ws: string, _id: string, jobId: string, end: { status: 'ready'; cloneVoiceId: string }) => {
      ends.push(m);
      if (voice.status !== 'cloning' || voice.jobId !== jobId) return null;
      voice = { ...voice, status: end.status, cloneVoiceId: end.cloneVoiceId };
      return { ...voice };
    },
  };
  const recorded: Array<{ tx: Tx; event: NewOutboxEvent }> = [];
  const outbox = { record: async (t: Tx, event: NewOutboxEvent) => void recorded.push({ tx: t, event }) } as unknown as Outbox;
  const storage = { get: async () => ({ body: Buffer.from('mp3'), contentType: 'audio/mpeg' }) };
  const speech = { cloneVoice: async () => ({ voiceId: 'el_voice_9' }) };
  const settled: Array<{ tx: Tx; id: string; settlement: JobSettlement }> = [];
  const jobRows = { settle: async (t: Tx, _ws: string, id: string, settlement: JobSettlement) => (settled.push({ tx: t, id, settlement }), true) };
  const jobs = new VoiceJobs(ds, voices as never, {} as never, speech as never, storage as never, {} as never, { retire: async () => undefined } as never, outbox, jobRows as never);
  const ctx = {
    job: { id: 'job_1', workspaceId: 'ws_1', jobType: 'clone_voice', payload: { voice_id: 'voice_1' } },
    progress: async () => undefined,
    signal: new AbortController().signal,
  } as unknown as JobContext<'clone_voice'>;
  return { jobs, ctx, recorded, settled, tx, ends, setStatus: (s: StoredVoice['status']) => (voice = { ...voice, status: s }) };
}

describe('VoiceJobs.clone: voice.ready', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('records voice.ready and ends the job in the transaction that makes the clone ready', async () => {
    const { jobs, ctx, recorded, settled, tx, ends } = setUp();
    const result = await jobs.clone(ctx);
    expect(ends).toEqual([tx]);
    expect(recorded).toEqual([{ tx, event: { type: 'voice.ready', workspaceId: 'ws_1', payload: { characterId: 'char_1' } } }]);
    expect(settled).toEqual([{ tx, id: 'job_1', settlement: { status: 'completed', result } }]);
    expect(result).toEqual({ voice_id: 'voice_1', clone_voice_id: 'el_voice_9' });
  });

  it('records and settles nothing when the clone did not end here (ended meanwhile by its failure, or already ready)', async () => {
    const { jobs, ctx, recorded, settled, setStatus } = setUp();
    setStatus('failed');
    await jobs.clone(ctx);
    setStatus('ready');
    await jobs.clone(ctx);
    expect(recorded).toEqual([]);
    expect(settled).toEqual([]);
  });
});
