import { createHash } from 'node:crypto';
import { AppError } from '../../core/index.js';
import type { CounterStore } from './counter-store.js';
import { fixedWindow, windowKey } from './rate-limiter.js';

/**
 * A named allowance beside the request throttler: `limit` hits per fixed window of `windowSeconds`,
 * counted per key (an address, an email, a user). What a hit is, the caller decides: every request
 * (`spend`), or only failures (`assertOpen` before, `record` after a failure).
 */
export interface Budget {
  name: string;
  limit: number;
  windowSeconds: number;
  /** The 429's message; the same whoever the key names, so a refusal tells nothing about an account. */
  message: string;
}

/**
 * Budgets over the shared counters (Redis when configured). A refusal is 429 `rate_limited` with
 * `details.retry_after`, which the error filter also sends as `Retry-After`.
 */
export class Budgets {
  constructor(private readonly store: CounterStore) {}

  /** Counts a hit on `key`; refuses it when it is past the limit (a refused hit still counts). */
  async spend(budget: Budget, key: string): Promise<void> {
    const now = Date.now();
    const count = await this.store.increment(budgetKey(budget, key, now), budget.windowSeconds);
    if (count > budget.limit) throw refusal(budget, count, now);
  }

  /** Refuses when `key` has used up its budget, counting nothing. */
  async assertOpen(budget: Budget, key: string): Promise<void> {
    const now = Date.now();
    const count = await this.store.peek(budgetKey(budget, key, now));
    if (count >= budget.limit) throw refusal(budget, count, now);
  }

  /** Counts a hit (a failure) on `key`, deciding nothing. */
  async record(budget: Budget, key: string): Promise<void> {
    await this.store.increment(budgetKey(budget, key, Date.now()), budget.windowSeconds);
  }
}

/**
 * A key for a value that should not sit in the counter store as typed (an email address): its
 * SHA-256, shortened. Collisions only merge two budgets.
 */
export function hashedKey(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url').slice(0, 22);
}

function budgetKey(budget: Budget, key: string, nowMs: number): string {
  return windowKey(`budget:${budget.name}:${key}`, budget.windowSeconds, nowMs);
}

function refusal(budget: Budget, count: number, nowMs: number): AppError {
  const { resetSeconds } = fixedWindow(count, budget.limit, budget.windowSeconds, nowMs);
  return new AppError('rate_limited', budget.message, { limit: budget.limit, retry_after: resetSeconds });
}
