import { SqlParams } from './sql-params.js';

/** Anything that runs a parameterised query: a DataSource, an EntityManager, a transaction. */
interface Queryable {
  query(sql: string, params: unknown[]): Promise<unknown>;
}

/**
 * One autocommit statement written by several modules: each adds the data-modifying common table
 * expressions of its own tables, binding its values through the shared parameters, and `run` sends
 * `WITH … SELECT 1`. A module hands the statement on, never SQL text, so each part's SQL stays
 * with the module that owns its tables.
 */
export class ComposedStatement {
  private readonly params = new SqlParams();
  private readonly parts: string[] = [];

  /** Adds `name AS (sql)`; `write` binds its values through `p` and answers the SQL. */
  with(name: string, write: (p: SqlParams) => string): this {
    return this.withParts((p) => [[name, write(p)]]);
  }

  /** Adds several `name AS (sql)` parts written together, so they can share a bound value. */
  withParts(write: (p: SqlParams) => ReadonlyArray<readonly [name: string, sql: string]>): this {
    for (const [name, sql] of write(this.params)) this.parts.push(`${name} AS (${sql})`);
    return this;
  }

  get sql(): string {
    return this.sqlSelecting('SELECT 1');
  }

  /** Runs the statement; `select` (default `SELECT 1`) is its final query, whose rows it answers. */
  async run<T = unknown>(m: Queryable, select = 'SELECT 1'): Promise<T[]> {
    if (this.parts.length === 0) throw new Error('An empty statement has nothing to run');
    return (await m.query(this.sqlSelecting(select), this.params.values)) as T[];
  }

  private sqlSelecting(select: string): string {
    return `WITH ${this.parts.join(', ')} ${select}`;
  }
}
