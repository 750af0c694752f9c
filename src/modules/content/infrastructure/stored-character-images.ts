import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';
import { Storage } from '../../../platform/storage/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { CharacterImages, type PrimaryImageBytes } from '../application/character-images.js';

/**
 * The character's uploaded primary reference image, read from our storage. External reference
 * URLs are never fetched here: only uploads (whose bytes we hold) start image-to-image.
 */
@Injectable()
export class StoredCharacterImages extends CharacterImages {
  constructor(
    private readonly characters: CharactersFacade,
    private readonly storage: Storage,
  ) {
    super();
  }

  async primaryImage(workspaceId: string, characterId: string, tx?: Tx): Promise<PrimaryImageBytes | null> {
    const primary = await this.characters.primaryReferenceImage(workspaceId, characterId, tx);
    if (!primary) return null;
    const object = await this.storage.get(primary.storageKey);
    return object ? { url: primary.url, bytes: object.body, contentType: primary.contentType } : null;
  }
}
