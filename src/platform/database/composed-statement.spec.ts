import { describe, expect, it } from '@jest/globals';
import { ComposedStatement } from './composed-statement.js';

describe('ComposedStatement', () => {
  it('numbers the placeholders of every part in one sequence and runs them as one statement', async () => {
    const sent: Array<{ sql: string; params: unknown[] }> = [];
    const st = new ComposedStatement()
      .with('a', (p) => `INSERT INTO t (x, y) VALUES (${p.bindAll([1, 2])})`)
      .with('b', (p) => `UPDATE u SET z = ${p.bind('z')}`);
    await st.run({ query: async (sql, params) => void sent.push({ sql, params }) });
    expect(sent).toEqual([{ sql: 'WITH a AS (INSERT INTO t (x, y) VALUES ($1, $2)), b AS (UPDATE u SET z = $3) SELECT 1', params: [1, 2, 'z'] }]);
  });

  it('refuses to run with no part', async () => {
    await expect(new ComposedStatement().run({ query: async () => undefined })).rejects.toThrow(/empty/);
  });
});
