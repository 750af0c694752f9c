import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataContributor, exportTables, tableMediaKeys, type ContributedData, type WorkspaceDataContributor, type WorkspaceTable } from '../../../../platform/data-rights/index.js';

const TABLES: readonly WorkspaceTable[] = [{ table: 'workspace_branding' }, { table: 'custom_domain_claims' }];

/** The workspace's white-label branding (its logo) and custom-domain claim (never its token). */
@DataContributor()
export class BrandingDataContributor implements WorkspaceDataContributor {
  readonly context = 'branding';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  mediaKeys(workspaceId: string): Promise<string[]> {
    return tableMediaKeys(this.ds, workspaceId, TABLES);
  }
}
