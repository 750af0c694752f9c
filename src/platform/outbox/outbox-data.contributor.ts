import type { Tx } from '../database/index.js';
import { DataContributor, type ContributedData, type ForgottenAccount, type WorkspaceDataContributor } from '../data-rights/index.js';

/**
 * Events name their workspace and user without a foreign key (they outlive neither on purpose), so
 * a forgotten account's events go with it. Nothing of the outbox is exported: it is plumbing.
 */
@DataContributor()
export class OutboxDataContributor implements WorkspaceDataContributor {
  readonly context = 'outbox';

  export(): Promise<ContributedData> {
    return Promise.resolve({ records: {}, mediaKeys: [] });
  }

  mediaKeys(): Promise<string[]> {
    return Promise.resolve([]);
  }

  async forget(tx: Tx, account: ForgottenAccount): Promise<void> {
    await tx.query(`DELETE FROM outbox_events WHERE workspace_id = ANY($1) OR payload->>'userId' = $2`, [account.workspaceIds, account.userId]);
  }
}
