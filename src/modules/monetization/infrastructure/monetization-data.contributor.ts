import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataContributor, exportTables, type ContributedData, type WorkspaceDataContributor, type WorkspaceTable } from '../../../platform/data-rights/index.js';

const TABLES: readonly WorkspaceTable[] = [
  { table: 'affiliate_links', exportMedia: false },
  { table: 'link_clicks_daily', exportMedia: false },
  { table: 'revenue_entries', exportMedia: false },
];

/** The workspace's affiliate links, their daily clicks and its revenue entries (no stored files). */
@DataContributor()
export class MonetizationDataContributor implements WorkspaceDataContributor {
  readonly context = 'monetization';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  async mediaKeys(): Promise<string[]> {
    return [];
  }
}
