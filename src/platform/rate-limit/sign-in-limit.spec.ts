import { describe, expect, it } from '@jest/globals';
import { AppConfig } from '../../config/index.js';
import { AppError } from '../../core/index.js';
import { MemoryCounterStore } from './counter-store.js';
import { RateLimiter, SIGN_IN_FAILURE_LIMIT } from './rate-limiter.js';

function limiter() {
  return new RateLimiter(new AppConfig({ JWT_SECRET: 'j'.repeat(32), TOKEN_ENCRYPTION_KEY: 'k'.repeat(32) }), new MemoryCounterStore());
}

describe('sign-in failure limit', () => {
  it(`lets an email fail ${SIGN_IN_FAILURE_LIMIT} times, then refuses it with a Retry-After`, async () => {
    const rl = limiter();
    for (let i = 0; i < SIGN_IN_FAILURE_LIMIT; i++) {
      await rl.assertSignInAllowed('ada@example.com');
      await rl.recordSignInFailure('ada@example.com');
    }
    const headers: Record<string, string> = {};
    const res = { setHeader: (k: string, v: string) => (headers[k] = v) } as never;
    const refusal = await rl.assertSignInAllowed('ada@example.com', res).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).code).toBe('rate_limited');
    expect(Number(headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(Number(headers['Retry-After'])).toBeLessThanOrEqual(15 * 60);
  });

  it('counts per email, whatever its case', async () => {
    const rl = limiter();
    for (let i = 0; i < SIGN_IN_FAILURE_LIMIT; i++) await rl.recordSignInFailure('Ada@Example.com');
    await expect(rl.assertSignInAllowed('ada@example.com')).rejects.toThrow(AppError);
    await expect(rl.assertSignInAllowed('grace@example.com')).resolves.toBeUndefined();
  });
});
