import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { JobHandler, Jobs, jobOutputs, OnJobFailed, type JobContext, type JobRecord } from '../../../platform/queue/index.js';
import { Storage } from '../../../platform/storage/index.js';
import { BillingFacade } from '../../billing/index.js';
import { callProvider, SpeechGenerator } from '../../generation/index.js';
import { audioKey, CLONE_VOICE_JOB, GENERATE_SPEECH_JOB } from '../domain/voice.js';
import { VoiceRepository } from '../infrastructure/voice.repository.js';
import { CloneRetirement } from './clone-retirement.js';
import { VoiceSettingsResolver } from './voice-settings.js';

/**
 * clone_voice and generate_speech. Each ends its record with one conditional update, so a
 * re-delivered job or its failure hook cannot end it (or refund it) twice; a failure refunds in
 * the transaction that marks the job failed.
 */
@Injectable()
export class VoiceJobs {
  private readonly logger = new Logger('Voice');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly voices: VoiceRepository,
    private readonly resolver: VoiceSettingsResolver,
    private readonly speech: SpeechGenerator,
    private readonly storage: Storage,
    private readonly billing: BillingFacade,
    private readonly retirement: CloneRetirement,
    private readonly outbox: Outbox,
    private readonly jobs: Jobs,
  ) {}

  @JobHandler(CLONE_VOICE_JOB)
  async clone(ctx: JobContext<'clone_voice'>): Promise<Record<string, unknown>> {
    const { job } = ctx;
    const voice = await this.voices.findById(this.ds.manager, job.workspaceId, job.payload.voice_id);
    if (!voice || voice.jobId !== job.id) return { voice_id: job.payload.voice_id, skipped: 'superseded' };
    if (voice.status === 'ready') return { voice_id: voice.id, clone_voice_id: voice.cloneVoiceId };
    const samples = await Promise.all(
      voice.sampleKeys.map(async (key, i) => {
        const stored = await this.storage.get(key);
        if (!stored) throw new AppError('upstream_failed', 'A voice sample is missing from storage.', { sample: i });
        return { bytes: stored.body, contentType: stored.contentType, filename: key.slice(key.lastIndexOf('/') + 1) };
      }),
    );
    await ctx.progress(20);
    const { voiceId } = await callProvider('speech', () => this.speech.cloneVoice({ name: voice.name ?? 'Cloned voice', samples }, ctx.signal));
    await ctx.progress(90);
    // The clone becomes ready with its `voice.ready` event and its job's end, in one transaction.
    const result = { voice_id: voice.id, clone_voice_id: voiceId };
    const ended = await inTransaction(this.ds, async (tx) => {
      const ready = await this.voices.endClone(tx, job.workspaceId, voice.id, job.id, { status: 'ready', cloneVoiceId: voiceId, settings: { ...voice.settings, voiceId } });
      if (!ready) return null;
      await this.outbox.record(tx, { type: 'voice.ready', workspaceId: job.workspaceId, payload: { characterId: ready.characterId } });
      await this.jobs.settle(tx, job.workspaceId, job.id, { status: 'completed', result });
      return ready;
    });
    this.logger.log({ msg: 'voice cloned', workspace_id: job.workspaceId, character_id: voice.characterId, voice_id: voiceId, applied: ended !== null });
    // The clone this one replaces is of no use to anyone now.
    if (ended && voice.cloneVoiceId && voice.cloneVoiceId !== voiceId) await this.retirement.retire(job.workspaceId, voice.cloneVoiceId);
    return result;
  }

  @OnJobFailed(CLONE_VOICE_JOB)
  async cloneFailed(tx: Tx, job: JobRecord<'clone_voice'>): Promise<void> {
    const failure = job.error ?? { code: 'job_failed', message: 'The voice clone failed.' };
    const ended = await this.voices.endClone(tx, job.workspaceId, job.payload.voice_id, job.id, { status: 'failed', error: failure });
    if (ended && ended.creditsCharged > 0) {
      await this.billing.credit(tx, { workspaceId: job.workspaceId, amount: ended.creditsCharged, reason: 'voice_clone_refund', refType: 'voice', refId: job.id });
    }
  }

  @JobHandler(GENERATE_SPEECH_JOB)
  async generate(ctx: JobContext<'generate_speech'>): Promise<Record<string, unknown>> {
    const { job } = ctx;
    const clip = await this.voices.findClip(this.ds.manager, job.workspaceId, job.payload.audio_id);
    if (!clip) throw AppError.notFound('Audio');
    if (clip.status === 'completed') return { audio_id: clip.id, duration_seconds: clip.durationSeconds, ...jobOutputs(clip.storageKey ? [{ kind: 'audio', key: clip.storageKey }] : []) };
    const voice = await this.resolver.effective(job.workspaceId, clip.characterId);
    await ctx.progress(10);
    const spoken = await callProvider('speech', () => this.speech.speak({ text: clip.text, voiceId: clip.voiceId, settings: voice.settings, format: clip.format }, ctx.signal));
    await ctx.progress(80);
    const key = audioKey(clip.characterId, clip.id, spoken.format);
    await this.storage.put(key, spoken.bytes, spoken.contentType);
    // The clip and its job end in one transaction: no read finds the clip done and its job running.
    return inTransaction(this.ds, async (tx) => {
      const ended = await this.voices.endClip(tx, job.workspaceId, clip.id, { status: 'completed', storageKey: key, durationSeconds: spoken.durationSeconds, format: spoken.format });
      const result = { audio_id: clip.id, duration_seconds: ended?.durationSeconds ?? spoken.durationSeconds, ...jobOutputs([{ kind: 'audio', key }]) };
      if (ended) await this.jobs.settle(tx, job.workspaceId, job.id, { status: 'completed', result });
      return result;
    });
  }

  @OnJobFailed(GENERATE_SPEECH_JOB)
  async generateFailed(tx: Tx, job: JobRecord<'generate_speech'>): Promise<void> {
    const failure = job.error ?? { code: 'job_failed', message: 'The speech generation failed.' };
    const ended = await this.voices.endClip(tx, job.workspaceId, job.payload.audio_id, { status: 'failed', error: failure });
    if (ended && ended.creditsCharged > 0) {
      await this.billing.credit(tx, { workspaceId: job.workspaceId, amount: ended.creditsCharged, reason: 'voice_generation_refund', refType: 'audio', refId: ended.id });
    }
  }
}
