import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataContributor, exportTables, type ContributedData, type WorkspaceDataContributor, type WorkspaceTable } from '../../../platform/data-rights/index.js';

const TABLES: readonly WorkspaceTable[] = [{ table: 'memberships', where: 'workspace_id = $1' }, { table: 'invitations' }];

/** The workspace's members and invitations (never an invitation's token hash). Neither holds files. */
@DataContributor()
export class OrganisationsDataContributor implements WorkspaceDataContributor {
  readonly context = 'organisations';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  mediaKeys(): Promise<string[]> {
    return Promise.resolve([]);
  }
}
