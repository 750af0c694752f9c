import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CharacterFiles } from '../../characters/index.js';
import { VoiceRepository } from '../infrastructure/voice.repository.js';

/** Deleting a character removes its audio clips and voice samples too. */
@Injectable()
export class VoiceFiles implements OnModuleInit {
  constructor(
    private readonly characterFiles: CharacterFiles,
    private readonly voices: VoiceRepository,
  ) {}

  onModuleInit(): void {
    this.characterFiles.register({ keysOf: (tx, workspaceId, characterId) => this.voices.fileKeysOfCharacter(tx, workspaceId, characterId) });
  }
}
