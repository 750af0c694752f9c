import { describe, expect, it } from '@jest/globals';
import { AppConfig } from '../../config/index.js';
import { MemoryCounterStore } from './counter-store.js';
import { RateLimiter } from './rate-limiter.js';

function limiterWith(env: Record<string, string>) {
  return new RateLimiter(new AppConfig({ JWT_SECRET: 'j'.repeat(32), TOKEN_ENCRYPTION_KEY: 'k'.repeat(32), ...env }), new MemoryCounterStore());
}

function headerSink() {
  const headers: Record<string, string> = {};
  return { headers, res: { setHeader: (k: string, v: string) => (headers[k] = v) } as never };
}

describe('per-workspace limit', () => {
  it("uses the plan's requests per minute, scaled to the window", async () => {
    const { headers, res } = headerSink();
    const limiter = limiterWith({ RATE_LIMIT_WINDOW_SECONDS: '30' });
    limiter.enforceWorkspace((await limiter.hitWorkspace('ws_a')).count, 'pro', res);
    expect(headers['X-RateLimit-Limit']).toBe('90');
    expect(headers['RateLimit-Policy']).toBe('"plan";q=90;w=30');
  });

  it('multiplies every plan limit by RATE_LIMIT_MULTIPLIER', async () => {
    const { headers, res } = headerSink();
    const limiter = limiterWith({ RATE_LIMIT_MULTIPLIER: '1000' });
    limiter.enforceWorkspace((await limiter.hitWorkspace('ws_a')).count, 'starter', res);
    expect(headers['X-RateLimit-Limit']).toBe('60000');
  });
});
