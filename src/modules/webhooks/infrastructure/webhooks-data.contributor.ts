import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataContributor, exportTables, type ContributedData, type WorkspaceDataContributor, type WorkspaceTable } from '../../../platform/data-rights/index.js';

/** Endpoints (never their secrets: sealed columns are left out), deliveries and attempts; they cascade with the workspace. */
const TABLES: readonly WorkspaceTable[] = [
  { table: 'webhook_endpoints', exportMedia: false },
  { table: 'webhook_deliveries', exportMedia: false },
  { table: 'webhook_attempts', where: 'delivery_id IN (SELECT id FROM webhook_deliveries WHERE workspace_id = $1)', exportMedia: false },
];

@DataContributor()
export class WebhooksDataContributor implements WorkspaceDataContributor {
  readonly context = 'webhooks';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  mediaKeys(): Promise<string[]> {
    return Promise.resolve([]);
  }
}
