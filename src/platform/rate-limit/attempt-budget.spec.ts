import { describe, expect, it } from '@jest/globals';
import { AppConfig } from '../../config/index.js';
import { AppError } from '../../core/index.js';
import { MemoryCounterStore } from './counter-store.js';
import { RateLimiter, type AttemptBudget } from './rate-limiter.js';

const BUDGET: AttemptBudget = { name: 'test', limit: 5, windowSeconds: 300, message: 'Too many tries.' };

function limiter() {
  return new RateLimiter(new AppConfig({ JWT_SECRET: 'j'.repeat(32), TOKEN_ENCRYPTION_KEY: 'k'.repeat(32) }), new MemoryCounterStore());
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('attempt budgets', () => {
  it('allows five failed attempts, refuses the sixth with 429 and a retry_after inside the window', async () => {
    const rl = limiter();
    for (let i = 0; i < 5; i++) await rl.reserveAttempt(BUDGET, 'user_a');
    const err = await refusal(rl.reserveAttempt(BUDGET, 'user_a'));
    expect(err.code).toBe('rate_limited');
    expect(err.message).toBe('Too many tries.');
    const retryAfter = (err.details as { retry_after: number }).retry_after;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(300);
  });

  it('a refunded attempt (it succeeded) spends nothing', async () => {
    const rl = limiter();
    for (let i = 0; i < 20; i++) await (await rl.reserveAttempt(BUDGET, 'user_a')).refund();
    for (let i = 0; i < 5; i++) await rl.reserveAttempt(BUDGET, 'user_a');
    await refusal(rl.reserveAttempt(BUDGET, 'user_a'));
  });

  it('concurrent attempts cannot all slip under the limit', async () => {
    const rl = limiter();
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => rl.reserveAttempt(BUDGET, 'user_a')));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
  });

  it('counts per subject and per budget', async () => {
    const rl = limiter();
    for (let i = 0; i < 5; i++) await rl.reserveAttempt(BUDGET, 'user_a');
    await expect(rl.reserveAttempt(BUDGET, 'user_b')).resolves.toBeDefined();
    await expect(rl.reserveAttempt({ ...BUDGET, name: 'other' }, 'user_a')).resolves.toBeDefined();
  });
});
