import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../core/index.js';
import { RateLimitHeaders } from './rate-limit-headers.js';

function sink() {
  const headers: Record<string, string> = {};
  return { headers, res: { setHeader: (k: string, v: string) => (headers[k] = v), getHeader: (k: string) => headers[k] } };
}

const headersFor = new RateLimitHeaders(
  new Map([
    ['plan', 30],
    ['auth', 60],
  ]),
);

describe('RateLimitHeaders', () => {
  it("turns the throttler's headers into exactly the contract's five", () => {
    const { headers, res } = sink();
    // As @nestjs/throttler sets them for a throttler named "plan".
    headersFor.set(res, 'X-RateLimit-Limit-plan', 90);
    headersFor.set(res, 'X-RateLimit-Remaining-plan', 89);
    headersFor.set(res, 'X-RateLimit-Reset-plan', 17);
    expect(headers).toEqual({
      'RateLimit-Policy': '"plan";q=90;w=30',
      RateLimit: '"plan";r=89;t=17',
      'X-RateLimit-Limit': '90',
      'X-RateLimit-Remaining': '89',
      'X-RateLimit-Reset': '17',
    });
  });

  it('names the auth policy and its own window', () => {
    const { headers, res } = sink();
    headersFor.set(res, 'X-RateLimit-Limit-auth', 5);
    headersFor.set(res, 'X-RateLimit-Remaining-auth', 4);
    headersFor.set(res, 'X-RateLimit-Reset-auth', 59);
    expect(headers['RateLimit-Policy']).toBe('"auth";q=5;w=60');
    expect(headers.RateLimit).toBe('"auth";r=4;t=59');
  });

  it('answers a refusal with rate_limited, Retry-After and every header, nothing remaining', () => {
    const { headers, res } = sink();
    headersFor.set(res, 'Retry-After-plan', 12);
    const refusal = headersFor.refuse(res, 'plan', { limit: 60, ttl: 30_000, totalHits: 61, timeToExpire: 12, timeToBlockExpire: 12 });
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal.code).toBe('rate_limited');
    expect(refusal.message).toBe('Rate limit of 60 requests per 30 s reached.');
    expect(refusal.details).toEqual({ limit: 60, retry_after: 12 });
    expect(headers).toEqual({
      'Retry-After': '12',
      'RateLimit-Policy': '"plan";q=60;w=30',
      RateLimit: '"plan";r=0;t=12',
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '12',
    });
  });
});
