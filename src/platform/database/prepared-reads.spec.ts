import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/index.js';
import { isOutageError } from '../health/outages.js';
import { PreparedReads } from './prepared-reads.js';

function readsOver(query: () => Promise<{ rows: unknown[] }>): PreparedReads {
  const ds = { driver: { master: { query } } } as unknown as DataSource;
  return new PreparedReads(ds, { databaseUrl: 'postgres://db:5432/app' } as AppConfig);
}

describe('PreparedReads', () => {
  it('reports a connection reset under a read as the database being away', async () => {
    // A pooled connection reset mid-query fails with a bare network error that names no port.
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
    const failure = await readsOver(() => Promise.reject(reset)).rows('q', 'SELECT 1', []).catch((e: unknown) => e);
    expect(failure).toBe(reset);
    expect(isOutageError(failure, new Set())).toBe(true);
  });

  it('leaves a wrong statement a bug, not an outage', async () => {
    const syntax = Object.assign(new Error('syntax error at or near "SELEC"'), { code: '42601' });
    const failure = await readsOver(() => Promise.reject(syntax)).rows('q', 'SELEC 1', []).catch((e: unknown) => e);
    expect(isOutageError(failure, new Set())).toBe(false);
  });

  it('answers the rows of a named statement', async () => {
    const seen: unknown[] = [];
    const reads = readsOver(((config: unknown) => {
      seen.push(config);
      return Promise.resolve({ rows: [{ id: 1 }] });
    }) as () => Promise<{ rows: unknown[] }>);
    await expect(reads.rows('by_id', 'SELECT $1::int AS id', [1])).resolves.toEqual([{ id: 1 }]);
    expect(seen).toEqual([{ name: 'by_id', text: 'SELECT $1::int AS id', values: [1] }]);
  });
});
