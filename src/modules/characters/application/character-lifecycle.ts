import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';

/** Runs inside the deleting transaction, before the character row goes (e.g. cancel its pending posts). */
export type CharacterDeletionHook = (tx: Tx, workspaceId: string, characterId: string) => Promise<void>;

/**
 * Lets later contexts take part in a character's deletion without this context knowing them:
 * they register a hook through the facade at start-up.
 */
@Injectable()
export class CharacterLifecycle {
  private readonly deletionHooks: CharacterDeletionHook[] = [];

  onDelete(hook: CharacterDeletionHook): void {
    this.deletionHooks.push(hook);
  }

  async beforeDelete(tx: Tx, workspaceId: string, characterId: string): Promise<void> {
    for (const hook of this.deletionHooks) await hook(tx, workspaceId, characterId);
  }
}
