import { Injectable, SetMetadata, applyDecorators } from '@nestjs/common';
import type { Tx } from '../database/index.js';

/** What one context holds of a workspace, for an export: its rows by table (secrets left out) and the media files to add. */
export interface ContributedData {
  records: Record<string, unknown[]>;
  mediaKeys: string[];
}

/** The account being forgotten: its id and the workspaces that go with it. */
export interface ForgottenAccount {
  userId: string;
  workspaceIds: readonly string[];
}

/**
 * One context's part in the data rights (export and erasure): each context that holds workspace
 * data provides one, in its own folder, so no SQL crosses a context's facade.
 */
export interface WorkspaceDataContributor {
  /** The context's name; the export's file is `<context>.json`. Unique across the service. */
  readonly context: string;
  /** The workspace's rows of this context, as the workspace's owner may take them away, and the media to add. */
  export(workspaceId: string): Promise<ContributedData>;
  /** Every stored file of the workspace this context keeps (erasure deletes them all, exports too). */
  mediaKeys(workspaceId: string): Promise<string[]>;
  /**
   * Rows of the account that do not cascade from its user or workspaces (no foreign key), removed
   * or anonymised inside the purge's transaction. Optional: most tables cascade.
   */
  forget?(tx: Tx, account: ForgottenAccount): Promise<void>;
}

export const DATA_CONTRIBUTOR_KEY = 'ps:data-contributor';

/** Marks a provider as a data-rights contributor; the registry finds it at boot (two of one context stop the boot). */
export function DataContributor(): ClassDecorator {
  return applyDecorators(Injectable(), SetMetadata(DATA_CONTRIBUTOR_KEY, true));
}
