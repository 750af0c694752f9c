import { Injectable } from '@nestjs/common';
import { callProvider, SpeechGenerator, type Speech } from '../../generation/index.js';
import { VoiceSettingsResolver } from './voice-settings.js';

/** What other contexts may ask of voices: speech in a character's voice. */
@Injectable()
export class VoiceFacade {
  constructor(
    private readonly resolver: VoiceSettingsResolver,
    private readonly speech: SpeechGenerator,
  ) {}

  /** `text` spoken in the character's voice with its settings (the default library voice without one). */
  async speak(workspaceId: string, characterId: string, text: string, signal?: AbortSignal): Promise<Speech> {
    const voice = await this.resolver.effective(workspaceId, characterId);
    return callProvider('speech', () => this.speech.speak({ text, voiceId: voice.voiceId, settings: voice.settings, format: 'wav' }, signal));
  }
}
