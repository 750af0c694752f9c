import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CharacterFiles } from '../../characters/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { VoiceRepository } from '../infrastructure/voice.repository.js';
import { CloneRetirement } from './clone-retirement.js';

/** Deleting a character removes its audio clips and voice samples too, and its clone at the provider. */
@Injectable()
export class VoiceFiles implements OnModuleInit {
  constructor(
    private readonly characterFiles: CharacterFiles,
    private readonly voices: VoiceRepository,
    private readonly retirement: CloneRetirement,
  ) {}

  onModuleInit(): void {
    this.characterFiles.register({
      keysOf: (tx, workspaceId, characterId) => this.voices.fileKeysOfCharacter(tx, workspaceId, characterId),
      releaseOf: (tx, workspaceId, characterId) => this.cloneRelease(tx, workspaceId, characterId),
    });
  }

  private async cloneRelease(tx: Tx, workspaceId: string, characterId: string): Promise<(() => Promise<void>) | null> {
    const clone = await this.voices.cloneOf(tx, workspaceId, characterId);
    return clone ? () => this.retirement.retire(workspaceId, clone) : null;
  }
}
