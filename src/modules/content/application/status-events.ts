import type { Tx } from '../../../platform/database/index.js';
import type { Outbox } from '../../../platform/outbox/index.js';
import type { ContentItem, ContentStatus } from '../domain/content-item.js';
import { statusEvent } from '../domain/content-status.js';

/**
 * Records the customer event of an item's status change (`statusEvent`), in the transaction `tx`
 * that writes the change: it is delivered once that commits, and never when it rolls back.
 */
export async function recordStatusEvent(outbox: Outbox, tx: Tx, item: Pick<ContentItem, 'id' | 'workspaceId' | 'characterId'>, from: ContentStatus | null, to: ContentStatus): Promise<void> {
  const type = statusEvent(from, to);
  if (type) await outbox.record(tx, { type, workspaceId: item.workspaceId, payload: { contentId: item.id, characterId: item.characterId } });
}
