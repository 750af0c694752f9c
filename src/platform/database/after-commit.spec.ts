import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { afterCommit, inTransaction, type Tx } from './transactions.js';

/** A data source whose transaction hands `work` a manager and commits when it resolves. */
function dataSource(log: string[]): DataSource {
  return {
    transaction: async (work: (tx: Tx) => Promise<unknown>) => {
      const result = await work({} as Tx);
      log.push('commit');
      return result;
    },
  } as unknown as DataSource;
}

describe('afterCommit', () => {
  it('runs a hook once the transaction committed, in order', async () => {
    const log: string[] = [];
    const answer = await inTransaction(dataSource(log), async (tx) => {
      afterCommit(tx, () => log.push('first'));
      afterCommit(tx, () => log.push('second'));
      log.push('work');
      return 42;
    });
    expect([answer, log]).toEqual([42, ['work', 'commit', 'first', 'second']]);
  });

  it('never runs a hook of a transaction that rolled back', async () => {
    const log: string[] = [];
    const failing = inTransaction(dataSource(log), async (tx) => {
      afterCommit(tx, () => log.push('hook'));
      throw new Error('rolled back');
    });
    await expect(failing).rejects.toThrow('rolled back');
    expect(log).toEqual([]);
  });

  it('runs at once outside a transaction inTransaction opened (each statement commits)', () => {
    const log: string[] = [];
    afterCommit({} as Tx, () => log.push('hook'));
    expect(log).toEqual(['hook']);
  });
});
