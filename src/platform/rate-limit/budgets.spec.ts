import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../core/index.js';
import { Budgets, hashedKey, type Budget } from './budgets.js';
import { MemoryCounterStore } from './counter-store.js';

const budget: Budget = { name: 'test', limit: 3, windowSeconds: 3600, message: 'Too many tries.' };

async function refusalOf(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('Budgets', () => {
  it('spend allows `limit` hits per key, then refuses with 429 rate_limited and a retry_after inside the window', async () => {
    const budgets = new Budgets(new MemoryCounterStore());
    for (let i = 0; i < 3; i += 1) await budgets.spend(budget, 'a');
    const err = await refusalOf(budgets.spend(budget, 'a'));
    expect(err.code).toBe('rate_limited');
    expect(err.message).toBe('Too many tries.');
    const details = err.details as { limit: number; retry_after: number };
    expect(details.limit).toBe(3);
    expect(details.retry_after).toBeGreaterThanOrEqual(1);
    expect(details.retry_after).toBeLessThanOrEqual(3600);
    // Another key, and another budget with the same key, have their own counts.
    await budgets.spend(budget, 'b');
    await budgets.spend({ ...budget, name: 'other' }, 'a');
  });

  it('assertOpen counts nothing; record counts failures; the limit-th failure closes the budget', async () => {
    const budgets = new Budgets(new MemoryCounterStore());
    for (let i = 0; i < 10; i += 1) await budgets.assertOpen(budget, 'u');
    await budgets.record(budget, 'u');
    await budgets.record(budget, 'u');
    await budgets.assertOpen(budget, 'u');
    await budgets.record(budget, 'u');
    expect((await refusalOf(budgets.assertOpen(budget, 'u'))).code).toBe('rate_limited');
  });

  it('hashedKey hides the value and is stable, and case matters (callers normalise first)', () => {
    expect(hashedKey('ada@example.com')).toBe(hashedKey('ada@example.com'));
    expect(hashedKey('ada@example.com')).not.toContain('ada');
    expect(hashedKey('ada@example.com')).not.toBe(hashedKey('ADA@example.com'));
    expect(hashedKey('ada@example.com')).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
