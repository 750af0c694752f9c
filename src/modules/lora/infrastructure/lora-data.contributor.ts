import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DataContributor, exportTables, tableMediaKeys, type ContributedData, type WorkspaceDataContributor, type WorkspaceTable } from '../../../platform/data-rights/index.js';

const TABLES: readonly WorkspaceTable[] = [{ table: 'loras' }, { table: 'lora_training_images' }];

/** The workspace's LoRA models and training images. */
@DataContributor()
export class LoraDataContributor implements WorkspaceDataContributor {
  readonly context = 'lora';

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  export(workspaceId: string): Promise<ContributedData> {
    return exportTables(this.ds, workspaceId, TABLES);
  }

  mediaKeys(workspaceId: string): Promise<string[]> {
    return tableMediaKeys(this.ds, workspaceId, TABLES);
  }
}
