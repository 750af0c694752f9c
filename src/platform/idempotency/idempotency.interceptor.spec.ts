import { describe, expect, it } from '@jest/globals';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { lastValueFrom, of, throwError } from 'rxjs';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';
import type { Claim, IdempotencyStore, IdempotentRequest } from './idempotency.store.js';

function fakeStore(answer: 'claim' | { status: number; body: unknown }) {
  const calls: string[] = [];
  const store = {
    claims: [] as IdempotentRequest[],
    async claim(req: IdempotentRequest) {
      store.claims.push(req);
      calls.push('claim');
      return answer === 'claim' ? ({ kind: 'claimed', workspaceId: req.workspaceId, key: req.key, token: 't' } as Claim) : { kind: 'replay' as const, ...answer };
    },
    async complete(_c: Claim, status: number, body: unknown) {
      calls.push(`complete ${status} ${JSON.stringify(body)}`);
    },
    async release() {
      calls.push('release');
    },
  };
  return { store, calls };
}

function context(headers: Record<string, string>, res: { statusCode: number; headers: Record<string, string> }) {
  const req = {
    method: 'POST',
    originalUrl: '/api/v1/marketplace/mkt_1/purchase',
    body: undefined,
    caller: { workspaceId: 'ws_1' },
    header: (name: string) => headers[name.toLowerCase()],
  };
  const response = {
    get statusCode() {
      return res.statusCode;
    },
    setHeader: (k: string, v: string) => (res.headers[k] = v),
    status: (s: number) => (res.statusCode = s),
  };
  return { getType: () => 'http', switchToHttp: () => ({ getRequest: () => req, getResponse: () => response }) } as unknown as ExecutionContext;
}

const handler = (run: () => unknown): CallHandler => ({ handle: () => run() as never });

describe('IdempotencyInterceptor', () => {
  it('passes requests without a key straight through', async () => {
    const { store, calls } = fakeStore('claim');
    const out = new IdempotencyInterceptor(store as unknown as IdempotencyStore).intercept(context({}, { statusCode: 201, headers: {} }), handler(() => of({ ok: 1 })));
    expect(await lastValueFrom(out)).toEqual({ ok: 1 });
    expect(calls).toEqual([]);
  });

  it('claims, runs and stores the answer with its status', async () => {
    const { store, calls } = fakeStore('claim');
    const res = { statusCode: 201, headers: {} as Record<string, string> };
    const out = new IdempotencyInterceptor(store as unknown as IdempotencyStore).intercept(context({ 'idempotency-key': 'k1' }, res), handler(() => of({ ok: 1 })));
    expect(await lastValueFrom(out)).toEqual({ ok: 1 });
    expect(calls).toEqual(['claim', 'complete 201 {"ok":1}']);
    expect(store.claims[0]).toMatchObject({ workspaceId: 'ws_1', key: 'k1', method: 'POST', path: '/api/v1/marketplace/mkt_1/purchase' });
    expect(res.headers).toEqual({});
  });

  it('releases the key when the work fails, and rethrows', async () => {
    const { store, calls } = fakeStore('claim');
    const out = new IdempotencyInterceptor(store as unknown as IdempotencyStore).intercept(
      context({ 'idempotency-key': 'k1' }, { statusCode: 201, headers: {} }),
      handler(() => throwError(() => new Error('no credits'))),
    );
    await expect(lastValueFrom(out)).rejects.toThrow('no credits');
    expect(calls).toEqual(['claim', 'release']);
  });

  it('replays a stored answer without running the work, marked as a replay', async () => {
    const { store, calls } = fakeStore({ status: 201, body: { first: true } });
    const res = { statusCode: 201, headers: {} as Record<string, string> };
    let ran = false;
    const out = new IdempotencyInterceptor(store as unknown as IdempotencyStore).intercept(
      context({ 'idempotency-key': 'k1' }, res),
      handler(() => {
        ran = true;
        return of({ second: true });
      }),
    );
    expect(await lastValueFrom(out)).toEqual({ first: true });
    expect(ran).toBe(false);
    expect(res.headers).toEqual({ 'Idempotent-Replayed': 'true' });
    expect(calls).toEqual(['claim']);
  });

  it('refuses a malformed key before claiming anything', () => {
    const { store, calls } = fakeStore('claim');
    const interceptor = new IdempotencyInterceptor(store as unknown as IdempotencyStore);
    expect(() => interceptor.intercept(context({ 'idempotency-key': 'x'.repeat(256) }, { statusCode: 201, headers: {} }), handler(() => of(1)))).toThrow(
      expect.objectContaining({ code: 'validation_failed' }),
    );
    expect(calls).toEqual([]);
  });
});
