import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataContributor, exportTables, tableMediaKeys, type ContributedData, type WorkspaceDataContributor, type WorkspaceTable } from '../../../platform/data-rights/index.js';

const TABLES: readonly WorkspaceTable[] = [
  { table: 'marketplace_listings', where: 'seller_workspace_id = $1', omit: ['search'] },
  { table: 'marketplace_templates', where: 'listing_id IN (SELECT id FROM marketplace_listings WHERE seller_workspace_id = $1)' },
  // Only the buyer's side: a purchase of our listing is the buyer's record, not ours.
  { table: 'marketplace_purchases', where: 'buyer_workspace_id = $1', omit: ['seller_workspace_id'], exportMedia: false },
  { table: 'marketplace_reviews', exportMedia: false },
];

/** The workspace's listings (with their frozen templates), its purchases and the reviews it wrote. */
@DataContributor()
export class MarketplaceDataContributor implements WorkspaceDataContributor {
  readonly context = 'marketplace';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  mediaKeys(workspaceId: string): Promise<string[]> {
    return tableMediaKeys(this.ds, workspaceId, TABLES);
  }
}
