import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, insufficientCredits, newId, type Page, type PageRequest } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { Jobs, type JobRecord } from '../../../platform/queue/index.js';
import { Storage } from '../../../platform/storage/index.js';
import { BillingFacade } from '../../billing/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { callProvider, SpeechGenerator, type SpeechFormat } from '../../generation/index.js';
import type { AudioClip } from '../domain/audio-clip.js';
import { audioKey, GENERATE_SPEECH_JOB, speechCredits } from '../domain/voice.js';
import { VoiceRepository } from '../infrastructure/voice.repository.js';
import { VoiceSettingsResolver } from './voice-settings.js';

/** Speech in a character's voice: a synchronous preview, or a generation made by a job (contract §11). */
@Injectable()
export class SpeechService {
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
    private readonly config: AppConfig,
  ) {}

  /**
   * Speaks up to 200 characters now. The balance is checked before the provider is called, and the
   * charge and the clip commit together after it spoke (a balance spent meanwhile is still 402, and
   * the audio is removed): a refused preview costs nothing.
   */
  async preview(workspaceId: string, characterId: string, text: string): Promise<AudioClip> {
    await this.characters.getForGeneration(workspaceId, characterId);
    const price = this.config.prices.voicePreview;
    const balance = await this.billing.balance(workspaceId);
    if (balance < price) throw insufficientCredits(price, balance);
    const voice = await this.resolver.effective(workspaceId, characterId);
    const spoken = await callProvider('speech', () => this.speech.speak({ text, voiceId: voice.voiceId, settings: voice.settings, format: 'mp3' }));
    const id = newId('aud');
    const key = audioKey(characterId, id, spoken.format);
    await this.storage.put(key, spoken.bytes, spoken.contentType);
    const clip: AudioClip = {
      id, workspaceId, characterId, kind: 'preview', status: 'completed', text, format: spoken.format, voiceId: voice.voiceId, storageKey: key,
      durationSeconds: spoken.durationSeconds, characters: text.length, creditsCharged: price, jobId: null, error: null, createdAt: new Date(),
    };
    try {
      await inTransaction(this.ds, async (tx) => {
        if (price > 0) await this.billing.debit(tx, { workspaceId, amount: price, reason: 'voice_preview', refType: 'audio', refId: id });
        await this.voices.insertClip(tx, clip);
      });
    } catch (err) {
      await this.storage.delete(key).catch(() => undefined);
      throw err;
    }
    return clip;
  }

  /** One audio clip of the character (a preview or a generation), or 404. */
  async clip(workspaceId: string, characterId: string, id: string): Promise<AudioClip> {
    const clip = await this.voices.findClip(this.ds.manager, workspaceId, id);
    if (!clip || clip.characterId !== characterId) throw AppError.notFound('Audio');
    return clip;
  }

  /** The character's clips (previews and generations), newest first; 404 for a character not in the workspace. */
  async clips(workspaceId: string, characterId: string, page: PageRequest): Promise<Page<AudioClip>> {
    await this.characters.get(workspaceId, characterId);
    return this.voices.listClips(this.ds.manager, workspaceId, characterId, page);
  }

  /** Accepts a speech of up to 5000 characters: the charge (1 per started 100), the clip and its job in one transaction. */
  async generate(workspaceId: string, characterId: string, text: string, format: SpeechFormat): Promise<{ audio: AudioClip; job: JobRecord }> {
    await this.characters.getForGeneration(workspaceId, characterId);
    const voice = await this.resolver.effective(workspaceId, characterId);
    const credits = speechCredits(text.length, this.config.prices.voicePer100Chars);
    const id = newId('aud');
    const created = await inTransaction(this.ds, async (tx) => {
      const job = await this.jobs.create(tx, { workspaceId, jobType: GENERATE_SPEECH_JOB, characterId, payload: { audio_id: id, credits } });
      if (credits > 0) await this.billing.debit(tx, { workspaceId, amount: credits, reason: 'voice_generation', refType: 'audio', refId: id });
      const audio: AudioClip = {
        id, workspaceId, characterId, kind: 'speech', status: 'queued', text, format, voiceId: voice.voiceId, storageKey: null, durationSeconds: null,
        characters: text.length, creditsCharged: credits, jobId: job.id, error: null, createdAt: new Date(),
      };
      await this.voices.insertClip(tx, audio);
      return { audio, job };
    });
    await this.jobs.enqueue(created.job);
    return created;
  }
}
