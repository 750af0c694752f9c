import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { SpeechGenerator, type VoiceSettings } from '../../generation/index.js';
import { DEFAULT_SETTINGS, type CharacterVoiceSettings } from '../domain/voice.js';
import { VoiceRepository, type StoredVoice } from '../infrastructure/voice.repository.js';

/** The voice a character speaks with, as the speech generator takes it. */
export interface EffectiveVoice {
  voiceId: string;
  settings: VoiceSettings;
}

/** Which voice speaks for a character and how: its settings, else its ready clone, else the default library voice. */
@Injectable()
export class VoiceSettingsResolver {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly voices: VoiceRepository,
    private readonly speech: SpeechGenerator,
    private readonly config: AppConfig,
  ) {}

  settingsOf(voice: StoredVoice | null): CharacterVoiceSettings {
    return voice?.settings ?? DEFAULT_SETTINGS;
  }

  /** The voice id a character speaks with now. */
  voiceIdOf(voice: StoredVoice | null): string {
    return voice?.settings.voiceId ?? (voice?.status === 'ready' ? voice.cloneVoiceId : null) ?? this.speech.defaultVoiceId();
  }

  async effective(workspaceId: string, characterId: string, tx?: Tx): Promise<EffectiveVoice> {
    const voice = await this.voices.find(tx ?? this.ds.manager, workspaceId, characterId);
    const s = this.settingsOf(voice);
    return {
      voiceId: this.voiceIdOf(voice),
      settings: { stability: s.stability, similarityBoost: s.similarityBoost, style: s.style, useSpeakerBoost: s.useSpeakerBoost, modelId: s.modelId ?? this.config.voice.defaultModelId },
    };
  }

  /**
   * 400 unless the workspace may speak with `voiceId`: a clone its records say it owns, or one of
   * the provider's premade voices. A clone id is never trusted for its shape: another workspace's
   * clone, and a clone the provider account holds but no record of ours, are refused alike.
   */
  async assertUsable(workspaceId: string, voiceId: string): Promise<void> {
    if (await this.voices.ownsClone(this.ds.manager, workspaceId, voiceId)) return;
    if (await this.speech.isPremade(voiceId)) return;
    throw new AppError('validation_failed', `Unknown voice_id "${voiceId.slice(0, 64)}".`, [{ field: 'voice_id', message: 'no such voice in the library or among this workspace’s clones' }]);
  }
}
