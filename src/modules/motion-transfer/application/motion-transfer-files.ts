import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CharacterFiles } from '../../characters/index.js';
import { MotionTransferRepository } from '../infrastructure/motion-transfer.repository.js';

/** Deleting a character removes its motion transfers' files (source upload, output, thumbnail) too. */
@Injectable()
export class MotionTransferFiles implements OnModuleInit {
  constructor(
    private readonly characterFiles: CharacterFiles,
    private readonly transfers: MotionTransferRepository,
  ) {}

  onModuleInit(): void {
    this.characterFiles.register({ keysOf: (tx, workspaceId, characterId) => this.transfers.fileKeysOfCharacter(tx, workspaceId, characterId) });
  }
}
