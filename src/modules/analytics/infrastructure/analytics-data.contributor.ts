import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataContributor, exportTables, tableMediaKeys, type ContributedData, type WorkspaceDataContributor, type WorkspaceTable } from '../../../platform/data-rights/index.js';

const TABLES: readonly WorkspaceTable[] = [{ table: 'account_follower_days' }, { table: 'post_metric_snapshots' }, { table: 'post_metrics_latest' }, { table: 'analytics_sync_state' }];

/** The workspace's analytics: follower days and post metrics. */
@DataContributor()
export class AnalyticsDataContributor implements WorkspaceDataContributor {
  readonly context = 'analytics';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  mediaKeys(workspaceId: string): Promise<string[]> {
    return tableMediaKeys(this.ds, workspaceId, TABLES);
  }
}
