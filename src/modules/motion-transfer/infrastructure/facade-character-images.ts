import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { CharacterImages, type PrimaryImage } from '../application/ports/character-images.js';

/** The character's primary image, through the characters context's facade. */
@Injectable()
export class FacadeCharacterImages extends CharacterImages {
  constructor(private readonly characters: CharactersFacade) {
    super();
  }

  primaryImage(workspaceId: string, characterId: string, tx?: Tx): Promise<PrimaryImage | null> {
    return this.characters.primaryReferenceImage(workspaceId, characterId, tx);
  }
}
