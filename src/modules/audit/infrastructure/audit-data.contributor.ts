import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../../../platform/database/index.js';
import { DataContributor, exportTables, type ContributedData, type ForgottenAccount, type WorkspaceDataContributor, type WorkspaceTable } from '../../../platform/data-rights/index.js';

const TABLES: readonly WorkspaceTable[] = [{ table: 'audit_log' }];

/**
 * The workspace's audit trail. A forgotten account's entries in the workspaces that remain keep
 * what happened but no longer say who (the columns name the user without a foreign key).
 */
@DataContributor()
export class AuditDataContributor implements WorkspaceDataContributor {
  readonly context = 'audit';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  mediaKeys(): Promise<string[]> {
    return Promise.resolve([]);
  }

  async forget(tx: Tx, account: ForgottenAccount): Promise<void> {
    await tx.query('UPDATE audit_log SET actor_user_id = NULL, actor_email = NULL WHERE actor_user_id = $1', [account.userId]);
    await tx.query('UPDATE audit_log SET target_id = NULL WHERE target_id = $1', [account.userId]);
  }
}
