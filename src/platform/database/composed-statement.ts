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
    return `WITH ${this.parts.join(', ')} SELECT 1`;
  }

  async run(m: Queryable): Promise<void> {
    if (this.parts.length === 0) throw new Error('An empty statement has nothing to run');
    await m.query(this.sql, this.params.values);
  }
}
