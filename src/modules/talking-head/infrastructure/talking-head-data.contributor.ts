import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataContributor, exportTables, tableMediaKeys, type ContributedData, type WorkspaceDataContributor, type WorkspaceTable } from '../../../platform/data-rights/index.js';

const TABLES: readonly WorkspaceTable[] = [{ table: 'talking_head_generations' }];

/** The workspace's talking-head generations and their audio, video and thumbnails. */
@DataContributor()
export class TalkingHeadDataContributor implements WorkspaceDataContributor {
  readonly context = 'talking-head';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  mediaKeys(workspaceId: string): Promise<string[]> {
    return tableMediaKeys(this.ds, workspaceId, TABLES);
  }
}
