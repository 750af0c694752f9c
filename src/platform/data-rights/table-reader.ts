import { storageKeysIn } from './media-keys.js';

/** Anything that runs SQL: a DataSource or a transaction's EntityManager. */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/** One table of a context's workspace data: how its rows are found (`$1` is the workspace id) and what is never exported. */
export interface WorkspaceTable {
  table: string;
  /** SQL condition on the table's rows; `$1` is the workspace id. Default `workspace_id = $1`. */
  where?: string;
  /** Columns left out of the export besides the secret-named ones (which are always left out). */
  omit?: readonly string[];
  /** Stored files of these rows are the workspace's own and go in the export (default true). */
  exportMedia?: boolean;
}

/** Columns that hold a credential in any form (hashes, sealed or encrypted tokens): never exported. */
const SECRET_COLUMN = /(^|_)(hash|sealed|secret|secrets|token|enc|password|passwords)(_|$)/;

export function isSecretColumn(name: string): boolean {
  return SECRET_COLUMN.test(name);
}

function exportable(row: Record<string, unknown>, omit: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (!isSecretColumn(k) && !omit.includes(k)) out[k] = v;
  return out;
}

/** The workspace's rows of each table, secrets left out, by table name. */
export async function readWorkspaceTables(db: Queryable, workspaceId: string, tables: readonly WorkspaceTable[]): Promise<Record<string, Record<string, unknown>[]>> {
  const records: Record<string, Record<string, unknown>[]> = {};
  for (const t of tables) {
    const rows = (await db.query(`SELECT * FROM ${t.table} WHERE ${t.where ?? 'workspace_id = $1'} ORDER BY 1`, [workspaceId])) as Record<string, unknown>[];
    records[t.table] = rows.map((r) => exportable(r, t.omit ?? []));
  }
  return records;
}

/** The export of a context made of tables: its rows and the stored files they name. */
export async function exportTables(db: Queryable, workspaceId: string, tables: readonly WorkspaceTable[]): Promise<{ records: Record<string, unknown[]>; mediaKeys: string[] }> {
  const records = await readWorkspaceTables(db, workspaceId, tables);
  const media = tables.filter((t) => t.exportMedia !== false).map((t) => records[t.table]);
  return { records, mediaKeys: storageKeysIn(media) };
}

/** Every stored file the tables' rows of the workspace name (secret-named columns never hold files). */
export async function tableMediaKeys(db: Queryable, workspaceId: string, tables: readonly WorkspaceTable[]): Promise<string[]> {
  return storageKeysIn(await readWorkspaceTables(db, workspaceId, tables));
}
