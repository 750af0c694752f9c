import { Injectable } from '@nestjs/common';
import { AppError, characterLimitReached, PLAN_LIMITS } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { hasRoomForCharacter, type Character } from '../domain/character.js';
import { CharacterRepository } from '../infrastructure/character.repository.js';

/** The plan's character limit, checked inside the transaction that adds the character. */
@Injectable()
export class CharacterQuota {
  constructor(private readonly characters: CharacterRepository) {}

  /**
   * Locks the workspace row, then counts: concurrent creators of one workspace queue on the lock,
   * so they can never together pass the limit. Call it first in the creating transaction.
   */
  /**
   * Adds a new character within the plan's limit: the workspace row locked by one statement, then
   * one statement that counts and inserts, so concurrent creators queue on the lock as for `reserve`,
   * with one round trip fewer. Call it first in the creating transaction.
   */
  async add(tx: Tx, character: Character): Promise<Character> {
    const plan = await this.characters.lockWorkspacePlan(tx, character.workspaceId);
    if (!plan) throw AppError.notFound('Workspace');
    const limit = PLAN_LIMITS[plan].characterLimit;
    if (await this.characters.insertWithin(tx, character, limit)) return character;
    throw characterLimitReached(plan, limit, await this.characters.count(tx, character.workspaceId));
  }

  async reserve(tx: Tx, workspaceId: string): Promise<void> {
    const plan = await this.characters.lockWorkspacePlan(tx, workspaceId);
    if (!plan) throw AppError.notFound('Workspace');
    const limit = PLAN_LIMITS[plan].characterLimit;
    const count = await this.characters.count(tx, workspaceId);
    if (!hasRoomForCharacter(count, limit)) {
      throw characterLimitReached(plan, limit, count);
    }
  }
}
