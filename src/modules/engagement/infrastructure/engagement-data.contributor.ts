import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataContributor, exportTables, tableMediaKeys, type ContributedData, type WorkspaceDataContributor, type WorkspaceTable } from '../../../platform/data-rights/index.js';

const TABLES: readonly WorkspaceTable[] = [
  { table: 'responder_settings' },
  { table: 'conversations' },
  { table: 'conversation_messages', exportMedia: false },
  { table: 'engagement_poll_cursors' },
];

/** The workspace's responder settings, conversations with the audience and their messages; they go with the workspace (foreign keys). */
@DataContributor()
export class EngagementDataContributor implements WorkspaceDataContributor {
  readonly context = 'engagement';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  mediaKeys(workspaceId: string): Promise<string[]> {
    return tableMediaKeys(this.ds, workspaceId, TABLES);
  }
}
