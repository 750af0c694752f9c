import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CharacterFiles } from '../../characters/index.js';
import { LoraRepository } from '../infrastructure/lora.repository.js';

/** Deleting a character removes its training images' files too. */
@Injectable()
export class LoraFiles implements OnModuleInit {
  constructor(
    private readonly characterFiles: CharacterFiles,
    private readonly loras: LoraRepository,
  ) {}

  onModuleInit(): void {
    this.characterFiles.register({ keysOf: (tx, workspaceId, characterId) => this.loras.imageKeysOfCharacter(tx, workspaceId, characterId) });
  }
}
