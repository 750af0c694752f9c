export * from './data-contributor.js';
export { DataContributors, buildContributorTable } from './contributor-registry.js';
export { DataRightsModule } from './data-rights.module.js';
export { storageKeysIn, without } from './media-keys.js';
export { exportTables, isSecretColumn, readWorkspaceTables, tableMediaKeys, type Queryable, type WorkspaceTable } from './table-reader.js';
