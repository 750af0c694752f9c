import type { DataSource, EntityManager } from 'typeorm';

/** A unit of work. Inside it, use only this manager: PGlite runs one transaction at a time. */
export type Tx = EntityManager;

/** The hooks each open `inTransaction` runs once it committed (never when it rolled back). */
const afterCommitHooks = new WeakMap<Tx, Array<() => void>>();

/** Runs `work` in one transaction; what it registered with `afterCommit` runs once that committed. */
export async function inTransaction<T>(ds: DataSource, work: (tx: Tx) => Promise<T>): Promise<T> {
  const committed: Array<() => void> = [];
  const result = await ds.transaction((tx) => {
    afterCommitHooks.set(tx, committed);
    return work(tx);
  });
  committed.forEach((hook) => hook());
  return result;
}

/**
 * Runs `hook` once `tx` committed: after `inTransaction` returns, not at all when it rolls back.
 * Outside a transaction `inTransaction` opened (a plain manager, which commits each statement), at
 * once. For telling another process about committed work (a wake-up), never for the work itself.
 */
export function afterCommit(tx: Tx, hook: () => void): void {
  const hooks = afterCommitHooks.get(tx);
  if (hooks) hooks.push(hook);
  else hook();
}

/** True when a PostgreSQL error is a unique violation, optionally of a named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  return isViolation(err, '23505', constraint);
}

/** True when a PostgreSQL error is a CHECK constraint violation, optionally of a named constraint. */
export function isCheckViolation(err: unknown, constraint?: string): boolean {
  return isViolation(err, '23514', constraint);
}

/** True when a PostgreSQL error is a foreign key violation, optionally of a named constraint. */
export function isForeignKeyViolation(err: unknown, constraint?: string): boolean {
  return isViolation(err, '23503', constraint);
}

function isViolation(err: unknown, sqlState: string, constraint: string | undefined): boolean {
  const e = err as { code?: string; driverError?: { code?: string; constraint?: string }; constraint?: string };
  const code = e?.driverError?.code ?? e?.code;
  if (code !== sqlState) return false;
  return constraint === undefined || (e.driverError?.constraint ?? e.constraint) === constraint;
}

/**
 * Runs an UPDATE or DELETE with RETURNING and answers the returned rows. The postgres driver
 * answers those statements with `[rows, rowCount]`, unlike SELECT and INSERT.
 */
export async function changedRows<T>(tx: Tx, sql: string, params: unknown[] = []): Promise<T[]> {
  const answer: [T[], number] = await tx.query(sql, params);
  return answer[0];
}

/** Runs an INSERT with RETURNING and answers the rows it wrote (the driver answers INSERT with the rows alone). */
export async function insertedRows<T>(tx: Tx, sql: string, params: unknown[] = []): Promise<T[]> {
  const rows: T[] = await tx.query(sql, params);
  return rows;
}

/** SQL that formats a timestamptz column as `Date.prototype.toISOString` does: UTC, milliseconds, a Z. */
export function isoTimestampSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * A value for a jsonb parameter: its JSON text, and SQL NULL for null or undefined (JSON.stringify
 * would store the JSON literal `null`, which `IS NULL` does not find). Arrays must go through it:
 * the driver would send a JavaScript array as a PostgreSQL array.
 */
export function jsonParam(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}
