import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataContributor, exportTables, tableMediaKeys, type ContributedData, type WorkspaceDataContributor, type WorkspaceTable } from '../../../platform/data-rights/index.js';

const TABLES: readonly WorkspaceTable[] = [{ table: 'content_items' }];

/** The workspace's content items and their media (images, videos, thumbnails). */
@DataContributor()
export class ContentDataContributor implements WorkspaceDataContributor {
  readonly context = 'content';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  mediaKeys(workspaceId: string): Promise<string[]> {
    return tableMediaKeys(this.ds, workspaceId, TABLES);
  }
}
