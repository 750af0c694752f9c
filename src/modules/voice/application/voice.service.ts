import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, newId, type Caller } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { Jobs, type JobRecord } from '../../../platform/queue/index.js';
import { Storage } from '../../../platform/storage/index.js';
import { AuditLog } from '../../audit/index.js';
import { BillingFacade } from '../../billing/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { SpeechGenerator, type LibraryVoice, type VoiceSample } from '../../generation/index.js';
import { cloneRefusal, CLONE_VOICE_JOB, DEFAULT_SETTINGS, sampleKey, type CharacterVoiceSettings } from '../domain/voice.js';
import { VoiceRepository, type StoredVoice } from '../infrastructure/voice.repository.js';
import { SampleIntake } from './sample-intake.js';
import { VoiceSettingsResolver } from './voice-settings.js';

/** A library voice as the workspace sees it: the provider's premade voices and its own clones. */
export interface WorkspaceVoice extends LibraryVoice {
  characterId: string | null;
}

/** The character's voice as `GET .../voice` shows it. */
export interface VoiceView {
  characterId: string;
  voiceId: string;
  name: string | null;
  category: 'premade' | 'cloned';
  record: StoredVoice | null;
  settings: CharacterVoiceSettings & { voiceId: string; modelId: string };
}

/** Where a clone's samples come from: uploaded parts, or URLs fetched now. */
export type SampleSource = { kind: 'upload'; files: ReadonlyArray<{ buffer: Buffer; originalname?: string }> } | { kind: 'urls'; urls: readonly string[] };

export interface CloneInput {
  name: string;
  description?: string;
  source: SampleSource;
  settings: Partial<CharacterVoiceSettings>;
}

/** The voice library, a character's voice and settings, and its clone (contract §11). */
@Injectable()
export class VoiceService {
  private readonly logger = new Logger('Voice');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly voices: VoiceRepository,
    private readonly resolver: VoiceSettingsResolver,
    private readonly speech: SpeechGenerator,
    private readonly characters: CharactersFacade,
    private readonly billing: BillingFacade,
    private readonly jobs: Jobs,
    private readonly storage: Storage,
    private readonly intake: SampleIntake,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  /** The provider's premade voices, then the workspace's clones (another workspace's never). */
  async library(workspaceId: string): Promise<WorkspaceVoice[]> {
    const [provided, clones] = await Promise.all([this.speech.voices(), this.voices.clones(this.ds.manager, workspaceId)]);
    const premade = provided.filter((v) => v.category === 'premade').map((v) => ({ ...v, characterId: null }));
    const own = clones
      .filter((c) => c.status === 'ready' && c.cloneVoiceId)
      .map((c): WorkspaceVoice => ({ voiceId: c.cloneVoiceId!, name: c.name ?? 'Cloned voice', category: 'cloned', previewUrl: null, labels: {}, characterId: c.characterId }));
    return [...premade, ...own];
  }

  async view(workspaceId: string, characterId: string): Promise<VoiceView> {
    await this.characters.get(workspaceId, characterId);
    const record = await this.voices.find(this.ds.manager, workspaceId, characterId);
    const voiceId = this.resolver.voiceIdOf(record);
    const settings = this.resolver.settingsOf(record);
    const cloned = record?.cloneVoiceId === voiceId;
    return {
      characterId,
      voiceId,
      name: cloned ? record?.name ?? null : null,
      category: cloned ? 'cloned' : 'premade',
      record,
      settings: { ...settings, voiceId, modelId: settings.modelId ?? this.config.voice.defaultModelId },
    };
  }

  /** A partial update of the character's settings; a voice_id the workspace may not use is 400. */
  async updateSettings(workspaceId: string, characterId: string, changes: Partial<CharacterVoiceSettings>): Promise<VoiceView> {
    await this.characters.get(workspaceId, characterId);
    if (changes.voiceId) await this.resolver.assertUsable(workspaceId, changes.voiceId);
    await inTransaction(this.ds, async (tx) => {
      await this.characters.getForUpdate(tx, workspaceId, characterId);
      const current = await this.voices.find(tx, workspaceId, characterId, { lock: true });
      const base = current ?? blankVoice(workspaceId, characterId);
      await this.voices.save(tx, { ...base, settings: { ...base.settings, ...definedOnly(changes) } });
    });
    return this.view(workspaceId, characterId);
  }

  /**
   * Accepts a clone: 404 character, 409 a clone already running, then the samples (400 a URL we will
   * not fetch, 413, 415), 402 credits; the samples are stored first (removed if the transaction refuses), then the charge, the job and the record
   * commit together. The clone becomes the character's voice when ready.
   */
  async clone(actor: Pick<Caller, 'workspaceId' | 'userId'>, characterId: string, input: CloneInput): Promise<{ voice: VoiceView; job: JobRecord }> {
    const { workspaceId } = actor;
    await this.characters.getForGeneration(workspaceId, characterId);
    const current = await this.voices.find(this.ds.manager, workspaceId, characterId);
    const early = cloneRefusal(current?.status ?? 'none');
    if (early) throw early;
    const samples = input.source.kind === 'upload' ? this.intake.fromUploads(input.source.files) : await this.intake.fromUrls(input.source.urls);
    const recordId = current?.id ?? newId('voice');
    const keys = samples.map((s, i) => sampleKey(characterId, recordId, i, extensionOf(s)));
    await Promise.all(samples.map((s, i) => this.storage.put(keys[i], s.bytes, s.contentType)));
    let job: JobRecord;
    try {
      job = await inTransaction(this.ds, async (tx) => {
        await this.characters.getForUpdate(tx, workspaceId, characterId);
        const locked = await this.voices.find(tx, workspaceId, characterId, { lock: true });
        const refusal = cloneRefusal(locked?.status ?? 'none');
        if (refusal) throw refusal;
        const credits = this.config.prices.voiceClone;
        const created = await this.jobs.create(tx, { workspaceId, jobType: CLONE_VOICE_JOB, characterId, payload: { voice_id: recordId, credits } });
        if (credits > 0) await this.billing.debit(tx, { workspaceId, amount: credits, reason: 'voice_clone', refType: 'voice', refId: created.id });
        const base = locked ?? blankVoice(workspaceId, characterId, recordId);
        await this.voices.save(tx, {
          ...base,
          name: input.name,
          status: 'cloning',
          settings: { ...base.settings, ...definedOnly(input.settings) },
          sampleCount: samples.length,
          sampleKeys: keys,
          error: null,
          jobId: created.id,
          creditsCharged: credits,
        });
        // The character is the target: the voice record's own id is never shown by the API.
        const details = { name: input.name, samples: samples.length, credits, job_id: created.id };
        await this.audit.record(tx, { workspaceId, actorUserId: actor.userId, action: 'voice.clone_started', targetType: 'character', targetId: characterId, details });
        return created;
      });
    } catch (err) {
      await Promise.all(keys.map((k) => this.storage.delete(k).catch(() => undefined)));
      throw err;
    }
    await this.jobs.enqueue(job);
    this.logger.log({ msg: 'voice clone queued', workspace_id: workspaceId, character_id: characterId, job_id: job.id, samples: keys.length });
    return { voice: await this.view(workspaceId, characterId), job };
  }
}

function blankVoice(workspaceId: string, characterId: string, id: string = newId('voice')): StoredVoice {
  const now = new Date();
  return {
    id, workspaceId, characterId, name: null, cloneVoiceId: null, status: 'none', settings: { ...DEFAULT_SETTINGS }, sampleCount: 0, sampleKeys: [],
    error: null, jobId: null, creditsCharged: 0, createdAt: now, updatedAt: now,
  };
}

function definedOnly(changes: Partial<CharacterVoiceSettings>): Partial<CharacterVoiceSettings> {
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
}

const AUDIO_EXTENSIONS: Readonly<Record<string, string>> = {
  'audio/mpeg': 'mp3', 'audio/wav': 'wav', 'audio/ogg': 'ogg', 'audio/flac': 'flac', 'audio/mp4': 'm4a', 'audio/webm': 'webm',
};

function extensionOf(sample: VoiceSample): string {
  const ext = AUDIO_EXTENSIONS[sample.contentType];
  if (!ext) throw new AppError('unsupported_media_type', 'A voice sample must be MP3, WAV, OGG, FLAC, M4A or WebM audio.');
  return ext;
}
