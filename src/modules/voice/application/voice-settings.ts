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
   * 400 unless the workspace may speak with `voiceId`: one of its own clones, or a library voice
   * of the provider that is no other workspace's clone.
   */
  async assertUsable(workspaceId: string, voiceId: string): Promise<void> {
    const m = this.ds.manager;
    const owner = await this.voices.cloneOwner(m, voiceId);
    if (owner === workspaceId) return;
    if (owner === null && (await this.speech.hasVoice(voiceId))) return;
    throw new AppError('validation_failed', `Unknown voice_id "${voiceId.slice(0, 64)}".`, [{ field: 'voice_id', message: 'no such voice in the library or among this workspace’s clones' }]);
  }
}
