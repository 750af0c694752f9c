import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CharacterFiles } from '../../characters/index.js';
import { TalkingHeadRepository } from '../infrastructure/talking-head.repository.js';

/** Deleting a character removes its talking heads' files too. */
@Injectable()
export class TalkingHeadFiles implements OnModuleInit {
  constructor(
    private readonly characterFiles: CharacterFiles,
    private readonly generations: TalkingHeadRepository,
  ) {}

  onModuleInit(): void {
    this.characterFiles.register({ keysOf: (tx, workspaceId, characterId) => this.generations.fileKeysOfCharacter(tx, workspaceId, characterId) });
  }
}
