import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataContributor, exportTables, tableMediaKeys, type ContributedData, type WorkspaceDataContributor, type WorkspaceTable } from '../../../platform/data-rights/index.js';

const MEMBERS = 'id IN (SELECT user_id FROM memberships WHERE workspace_id = $1)';

/** The workspace, its members' profiles (never a password hash or any other secret) and sessions, and its exports. */
const TABLES: readonly WorkspaceTable[] = [
  { table: 'workspaces', where: 'id = $1' },
  { table: 'users', where: MEMBERS },
  { table: 'sessions', omit: ['user_agent_hash'] },
  // Earlier archives are not put inside a new one; erasure deletes them.
  { table: 'account_exports', exportMedia: false },
];

@DataContributor()
export class AuthDataContributor implements WorkspaceDataContributor {
  readonly context = 'auth';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  mediaKeys(workspaceId: string): Promise<string[]> {
    return tableMediaKeys(this.ds, workspaceId, TABLES);
  }
}
