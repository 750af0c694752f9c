import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';

/** A context that keeps stored files for a character's things (its content, its motion transfers). */
export interface CharacterFileOwner {
  /** The storage keys of the character's things, read inside the deleting transaction, before its rows cascade away. */
  keysOf(tx: Tx, workspaceId: string, characterId: string): Promise<string[]>;
  /**
   * What the owner must still do outside the database once the deletion committed (a copy of the
   * character's things at a provider), read inside the deleting transaction like the keys. The
   * work it answers runs after commit and must not throw.
   */
  releaseOf?(tx: Tx, workspaceId: string, characterId: string): Promise<(() => Promise<void>) | null>;
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

  /** The owners' work for after the deletion commits. */
  async releasesOf(tx: Tx, workspaceId: string, characterId: string): Promise<Array<() => Promise<void>>> {
    const releases: Array<() => Promise<void>> = [];
    for (const owner of this.owners) {
      const release = owner.releaseOf ? await owner.releaseOf(tx, workspaceId, characterId) : null;
      if (release) releases.push(release);
    }
    return releases;
  }
}
