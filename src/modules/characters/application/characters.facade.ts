import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { Character } from '../domain/character.js';
import { CharacterRepository } from '../infrastructure/character.repository.js';
import { CharacterCloner } from './character-cloner.js';
import { CharacterLifecycle, type CharacterDeletionHook } from './character-lifecycle.js';

/**
 * What other contexts (content, publishing, marketplace, LoRA, voice) may do with characters.
 * Methods taking `tx` run inside the caller's transaction: with PGlite, pass it whenever you hold one.
 */
@Injectable()
export class CharactersFacade {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly characters: CharacterRepository,
    private readonly cloner: CharacterCloner,
    private readonly lifecycle: CharacterLifecycle,
  ) {}

  /** The character, or 404 `not_found` when it does not exist or belongs to another workspace. */
  async get(workspaceId: string, id: string, tx?: Tx): Promise<Character> {
    const found = await this.find(workspaceId, id, tx);
    if (!found) throw AppError.notFound('Character');
    return found;
  }

  find(workspaceId: string, id: string, tx?: Tx): Promise<Character | null> {
    return this.characters.find(tx ?? this.ds.manager, workspaceId, id);
  }

  /** Like `get`, and locks the row until `tx` ends (e.g. while changing its LoRA status). */
  async getForUpdate(tx: Tx, workspaceId: string, id: string): Promise<Character> {
    const found = await this.characters.find(tx, workspaceId, id, { lock: true });
    if (!found) throw AppError.notFound('Character');
    return found;
  }

  /**
   * Clones a character (a marketplace template) into another workspace inside `tx`: checks the
   * target's plan limit (403 `character_limit_reached`), copies reference images and their bytes,
   * resets counters, LoRA and default. Stored bytes copied before a later rollback of `tx` are
   * left behind unreferenced.
   */
  cloneInto(tx: Tx, req: { sourceWorkspaceId: string; sourceCharacterId: string; targetWorkspaceId: string; name?: string }): Promise<Character> {
    const { name, ...rest } = req;
    return this.cloner.clone(tx, { ...rest, rename: name === undefined ? undefined : () => name });
  }

  /** Sets fields other contexts own the truth of (LoRA training status, consistency tier). */
  async setTraining(tx: Tx, workspaceId: string, id: string, changes: { loraTrainingStatus?: string; faceConsistencyTier?: string }): Promise<void> {
    await this.characters.update(tx, workspaceId, id, { ...changes, updatedAt: new Date() });
  }

  /** Counts generated content on the character (negative to undo). */
  addContent(tx: Tx, workspaceId: string, id: string, by = 1): Promise<void> {
    return this.characters.addContent(tx, workspaceId, id, by);
  }

  /** Records a publication: `last_post_date` moves forward, never back. */
  recordPost(tx: Tx, workspaceId: string, id: string, at: Date): Promise<void> {
    return this.characters.recordPost(tx, workspaceId, id, at);
  }

  /** Registers work to do inside a character's deletion transaction (e.g. cancel pending posts). */
  onDelete(hook: CharacterDeletionHook): void {
    this.lifecycle.onDelete(hook);
  }
}
