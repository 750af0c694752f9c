import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { callProvider, SpeechGenerator } from '../../generation/index.js';
import { VoiceRepository } from '../infrastructure/voice.repository.js';

/**
 * A clone replaced by a newer one, or whose character was deleted, is removed from the provider:
 * a voice print nobody can use any more must not stay in the account (nor count against its
 * voice slots). Characters of the workspace that had chosen it go back to the default voice.
 * Runs after the change committed and never undoes it: a provider failure is logged, with the
 * voice id, for removal by hand, the way a stored file that could not be removed is.
 */
@Injectable()
export class CloneRetirement {
  private readonly logger = new Logger('Voice');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly voices: VoiceRepository,
    private readonly speech: SpeechGenerator,
  ) {}

  async retire(workspaceId: string, cloneVoiceId: string): Promise<void> {
    try {
      const reset = await this.voices.forgetVoice(this.ds.manager, workspaceId, cloneVoiceId);
      // Another record holding the same id (an offline clone of the same samples) still speaks with it.
      if (await this.voices.cloneHeld(this.ds.manager, cloneVoiceId)) return;
      await callProvider('speech', () => this.speech.deleteVoice(cloneVoiceId));
      this.logger.log({ msg: 'voice clone removed at the provider', workspace_id: workspaceId, clone_voice_id: cloneVoiceId, provider: this.speech.provider, characters_reset: reset });
    } catch (err) {
      this.logger.warn({ msg: 'voice clone not removed at the provider; remove it by hand', workspace_id: workspaceId, clone_voice_id: cloneVoiceId, provider: this.speech.provider, err: String(err) });
    }
  }
}
