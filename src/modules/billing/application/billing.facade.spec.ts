import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { ComposedStatement, type Tx } from '../../../platform/database/index.js';
import type { LedgerEntry } from '../domain/credits.js';
import type { CreditLedgerRepository } from '../infrastructure/credit-ledger.repository.js';
import { BillingFacade } from './billing.facade.js';

/** An in-memory ledger with the repository's contract: a debit that cannot go below zero, recorded with its entry. */
class FakeLedger {
  readonly entries: Array<Omit<LedgerEntry, 'id' | 'createdAt'>> = [];
  constructor(readonly balances: Map<string, number>) {}

  /** Moves the balance and appends the entry together; a covered-only move that is not covered moves nothing. */
  async move(_tx: Tx, e: Omit<LedgerEntry, 'id' | 'createdAt' | 'balanceAfter'>, requireCover: boolean): Promise<LedgerEntry | null> {
    const b = this.balances.get(e.workspaceId);
    if (b === undefined || (requireCover && b + e.amount < 0)) return null;
    this.balances.set(e.workspaceId, b + e.amount);
    const entry = { ...e, balanceAfter: b + e.amount };
    this.entries.push(entry);
    return { ...entry, id: `led_${this.entries.length}`, createdAt: new Date(0) };
  }
  async balance(id: string) {
    return this.balances.get(id) ?? null;
  }
}

const tx = {} as Tx;

function setup(balance = 100) {
  const ledger = new FakeLedger(new Map([['ws_a', balance]]));
  return { ledger, billing: new BillingFacade(ledger as unknown as CreditLedgerRepository) };
}

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('BillingFacade', () => {
  it('debits with a negative ledger entry carrying the new balance', async () => {
    const { billing, ledger } = setup(100);
    const moved = await billing.debit(tx, { workspaceId: 'ws_a', amount: 30, reason: 'image_generation', refType: 'job', refId: 'job_1' });
    expect(moved.balance).toBe(70);
    expect(ledger.entries).toEqual([
      { workspaceId: 'ws_a', amount: -30, balanceAfter: 70, reason: 'image_generation', refType: 'job', refId: 'job_1' },
    ]);
  });

  it('refuses a debit beyond the balance with the amounts, recording nothing', async () => {
    const { billing, ledger } = setup(20);
    const err = await errorOf(billing.debit(tx, { workspaceId: 'ws_a', amount: 29, reason: 'x' }));
    expect(err.code).toBe('insufficient_credits');
    expect(err.message).toMatch(/^This needs 29 credits; the workspace has 20 \(9 short\)\. /);
    expect(err.details).toMatchObject({ required: 29, balance: 20, shortfall: 9 });
    expect(ledger.entries).toHaveLength(0);
  });

  it('credits with a positive entry', async () => {
    const { billing, ledger } = setup(5);
    expect((await billing.credit(tx, { workspaceId: 'ws_a', amount: 50, reason: 'refund' })).balance).toBe(55);
    expect(ledger.entries[0]).toMatchObject({ amount: 50, balanceAfter: 55, refType: null, refId: null });
  });

  it('answers not_found for an unknown workspace', async () => {
    const { billing } = setup();
    expect((await errorOf(billing.debit(tx, { workspaceId: 'ws_b', amount: 1, reason: 'x' }))).code).toBe('not_found');
    expect((await errorOf(billing.credit(tx, { workspaceId: 'ws_b', amount: 1, reason: 'x' }))).code).toBe('not_found');
    expect((await errorOf(billing.balance('ws_b'))).code).toBe('not_found');
  });

  it.each([0, -5, 1.5, Number.NaN])('treats an amount of %p as a programming error', async (amount) => {
    const { billing } = setup();
    await expect(billing.debit(tx, { workspaceId: 'ws_a', amount, reason: 'x' })).rejects.toThrow(/positive whole number/);
    await expect(billing.credit(tx, { workspaceId: 'ws_a', amount, reason: 'x' })).rejects.toThrow(/positive whole number/);
  });
});

describe('BillingFacade.payFor', () => {
  const uncovered = () => Object.assign(new Error('violates check'), { driverError: { code: '23514', constraint: 'workspaces_credits_balance_check' } });

  /** A ledger whose statement run fails with `failure`, recording the movement it was given. */
  function payingSetup(failure: Error | null, balance = 4) {
    const runs: Array<Record<string, unknown> | null> = [];
    const ledger = {
      runWith: async (_st: ComposedStatement, movement: Record<string, unknown> | null) => {
        runs.push(movement);
        if (failure) throw failure;
      },
      balance: async () => balance,
    };
    return { runs, billing: new BillingFacade(ledger as unknown as CreditLedgerRepository) };
  }

  it('runs the caller’s writes with the debit as a negative movement', async () => {
    const { billing, runs } = payingSetup(null);
    await billing.payFor(new ComposedStatement(), { workspaceId: 'ws_a', amount: 9, reason: 'content_image', refType: 'content', refId: 'cnt_1' });
    expect(runs).toEqual([{ workspaceId: 'ws_a', amount: -9, reason: 'content_image', refType: 'content', refId: 'cnt_1' }]);
  });

  it('runs a free order without a movement', async () => {
    const { billing, runs } = payingSetup(null);
    await billing.payFor(new ComposedStatement(), null);
    expect(runs).toEqual([null]);
  });

  it('answers an uncovered debit with insufficient_credits and the balance as it is now', async () => {
    const { billing } = payingSetup(uncovered(), 4);
    const err = await errorOf(billing.payFor(new ComposedStatement(), { workspaceId: 'ws_a', amount: 9, reason: 'x' }));
    expect(err.code).toBe('insufficient_credits');
    expect(err.details).toMatchObject({ required: 9, balance: 4, shortfall: 5 });
  });

  it('passes any other failure on unchanged, also for a free order', async () => {
    const failure = new Error('connection reset');
    await expect(payingSetup(failure).billing.payFor(new ComposedStatement(), { workspaceId: 'ws_a', amount: 9, reason: 'x' })).rejects.toBe(failure);
    const check = uncovered();
    await expect(payingSetup(check).billing.payFor(new ComposedStatement(), null)).rejects.toBe(check);
  });
});
