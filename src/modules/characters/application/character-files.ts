import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';

/** A context that keeps stored files for a character's things (its content, its motion transfers). */
export interface CharacterFileOwner {
  /** The storage keys of the character's things, read inside the deleting transaction, before its rows cascade away. */
  keysOf(tx: Tx, workspaceId: string, characterId: string): Promise<string[]>;
}

/**
 * Where contexts that depend on characters register their files, so deleting a character removes
 * every file of it, not only its reference images, without characters depending on them.
 */
@Injectable()
export class CharacterFiles {
  private readonly owners: CharacterFileOwner[] = [];

  register(owner: CharacterFileOwner): void {
    this.owners.push(owner);
  }

  async keysOf(tx: Tx, workspaceId: string, characterId: string): Promise<string[]> {
    const keys: string[] = [];
    for (const owner of this.owners) keys.push(...(await owner.keysOf(tx, workspaceId, characterId)));
    return keys;
  }
}
