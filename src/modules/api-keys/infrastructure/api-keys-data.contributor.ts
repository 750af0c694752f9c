import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataContributor, exportTables, tableMediaKeys, type ContributedData, type WorkspaceDataContributor, type WorkspaceTable } from '../../../platform/data-rights/index.js';

const TABLES: readonly WorkspaceTable[] = [{ table: 'api_keys' }];

/** The workspace's API keys: names, prefixes and scopes, never their hashes. */
@DataContributor()
export class ApiKeysDataContributor implements WorkspaceDataContributor {
  readonly context = 'api-keys';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  mediaKeys(workspaceId: string): Promise<string[]> {
    return tableMediaKeys(this.ds, workspaceId, TABLES);
  }
}
