import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { ComposedStatement, type Tx } from '../../../platform/database/index.js';
import type { AllocationState } from '../domain/allocation.js';
import type { LedgerEntry } from '../domain/credits.js';
import type { AllocationsRepository } from '../infrastructure/allocations.repository.js';
import type { CreditLedgerRepository, Moved } from '../infrastructure/credit-ledger.repository.js';
import type { PlansRepository } from '../infrastructure/plans.repository.js';
import { BillingFacade } from './billing.facade.js';
import type { CreditAlerts } from './credit-alerts.js';

/**
 * An in-memory ledger with the repository's contract: a debit that cannot go below zero, taking the
 * allocation first, recorded with its entry.
 */
class FakeLedger {
  readonly entries: Array<Omit<LedgerEntry, 'id' | 'createdAt'>> = [];
  allocation: AllocationState = { granted: 0, remaining: 0, period: null };
  constructor(readonly balances: Map<string, number>) {}

  /** Moves the balance and appends the entry together; a covered-only move that is not covered moves nothing. */
  async move(_tx: Tx, e: Omit<LedgerEntry, 'id' | 'createdAt' | 'balanceAfter'>, requireCover: boolean): Promise<Moved | null> {
    const b = this.balances.get(e.workspaceId);
    if (b === undefined || (requireCover && b + e.amount < 0)) return null;
    this.balances.set(e.workspaceId, b + e.amount);
    if (e.amount < 0) this.allocation = { ...this.allocation, remaining: Math.max(0, this.allocation.remaining + e.amount) };
    const entry = { ...e, balanceAfter: b + e.amount };
    this.entries.push(entry);
    return { entry: { ...entry, id: `led_${this.entries.length}`, createdAt: new Date(0) }, allocation: this.allocation };
  }
  async balance(id: string) {
    return this.balances.get(id) ?? null;
  }
}

/** The alerts the facade asked for: in the debit's transaction or after its own statement. */
function alertsRecorder() {
  const raised: Array<{ how: 'in_tx' | 'after'; state: AllocationState; balance: number }> = [];
  const alerts = {
    raise: async (_tx: Tx, _ws: string, state: AllocationState, balance: number) => void raised.push({ how: 'in_tx', state, balance }),
    raiseAfter: async (_ws: string, state: AllocationState, balance: number) => void raised.push({ how: 'after', state, balance }),
  };
  return { raised, alerts: alerts as unknown as CreditAlerts };
}

function facade(ledger: unknown, alerts: CreditAlerts = alertsRecorder().alerts): BillingFacade {
  return new BillingFacade(ledger as CreditLedgerRepository, {} as AllocationsRepository, {} as PlansRepository, alerts);
}

const tx = {} as Tx;

function setup(balance = 100) {
  const ledger = new FakeLedger(new Map([['ws_a', balance]]));
  const recorder = alertsRecorder();
  return { ledger, raised: recorder.raised, billing: facade(ledger, recorder.alerts) };
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

  it('hands the allocation a debit left to the alerts, in the debit\'s transaction', async () => {
    const { billing, ledger, raised } = setup(250);
    ledger.allocation = { granted: 200, remaining: 200, period: 'invoice:in_1' };
    await billing.debit(tx, { workspaceId: 'ws_a', amount: 180, reason: 'lora_training' });
    expect(raised).toEqual([{ how: 'in_tx', state: { granted: 200, remaining: 20, period: 'invoice:in_1' }, balance: 70 }]);
  });

  it('raises no alert for a debit refused', async () => {
    const { billing, raised } = setup(5);
    await errorOf(billing.debit(tx, { workspaceId: 'ws_a', amount: 6, reason: 'x' }));
    expect(raised).toEqual([]);
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
        return movement ? { balance: 7, allocation: { granted: 50, remaining: 3, period: 'starter:1' } } : null;
      },
      balance: async () => balance,
    };
    const recorder = alertsRecorder();
    return { runs, raised: recorder.raised, billing: facade(ledger, recorder.alerts) };
  }

  it('hands what a paid order left to the alerts after its statement committed', async () => {
    const { billing, raised } = payingSetup(null);
    await billing.payFor(new ComposedStatement(), { workspaceId: 'ws_a', amount: 9, reason: 'content_image' });
    expect(raised).toEqual([{ how: 'after', state: { granted: 50, remaining: 3, period: 'starter:1' }, balance: 7 }]);
  });

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
