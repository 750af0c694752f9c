import { describe, expect, it } from '@jest/globals';
import type { ThrottlerOptions } from '@nestjs/throttler';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { AppConfig } from '../../config/index.js';
import { newId, type Caller, type Plan } from '../../core/index.js';
import { MemoryCounterStore } from './counter-store.js';
import { RateLimiter } from './rate-limiter.js';
import { throttlerOptions, type RateLimitedRequest } from './throttlers.js';

class Routes {
  me(): void {}
  credits(): void {}
}

function configWith(env: Record<string, string> = {}): AppConfig {
  return new AppConfig({ JWT_SECRET: 'j'.repeat(32), TOKEN_ENCRYPTION_KEY: 'k'.repeat(32), ...env });
}

function setup(env: Record<string, string> = {}) {
  const config = configWith(env);
  const store = new MemoryCounterStore();
  const options = throttlerOptions(config, store);
  if (Array.isArray(options)) throw new Error('expected module options');
  const named = (name: string): ThrottlerOptions => options.throttlers.find((t) => t.name === name)!;
  return { options, plan: named('plan'), auth: named('auth'), open: named('open'), limiter: new RateLimiter(config, store), store };
}

function caller(plan: Plan, workspaceId = newId('ws')): Caller {
  return { kind: 'session', userId: newId('user'), workspaceId, role: 'user', workspaceRole: 'owner', plan, scopes: [] };
}

function contextOf(req: RateLimitedRequest, handler: keyof Routes = 'me') {
  return new ExecutionContextHost([req, {}, undefined], Routes, Routes.prototype[handler]);
}

describe('the plan throttler', () => {
  it("limits an authenticated request at its plan's rate per minute, scaled to the window", async () => {
    const { plan } = setup({ RATE_LIMIT_WINDOW_SECONDS: '30' });
    expect(plan.ttl).toBe(30_000);
    const limitOf = plan.limit as (ctx: ExecutionContextHost) => number;
    expect(limitOf(contextOf({ caller: caller('starter') }))).toBe(30);
    expect(limitOf(contextOf({ caller: caller('pro') }))).toBe(90);
    expect(limitOf(contextOf({ caller: caller('agency') }))).toBe(150);
  });

  it('multiplies every plan limit by RATE_LIMIT_MULTIPLIER', () => {
    const { plan } = setup({ RATE_LIMIT_MULTIPLIER: '1000' });
    expect((plan.limit as (ctx: ExecutionContextHost) => number)(contextOf({ caller: caller('starter') }))).toBe(60_000);
  });

  it('runs for authenticated requests only, tracked by workspace', async () => {
    const { plan } = setup();
    const who = caller('starter');
    expect(plan.skipIf!(contextOf({ caller: who }))).toBe(false);
    expect(plan.skipIf!(contextOf({ ip: '10.0.0.1' }))).toBe(true);
    expect(await plan.getTracker!({ caller: who }, contextOf({ caller: who }))).toBe(`ws:${who.workspaceId}`);
  });
});

describe('the auth throttler', () => {
  it('limits open sign-in requests per address per minute', async () => {
    const { auth } = setup({ AUTH_RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_WINDOW_SECONDS: '30' });
    expect({ ttl: auth.ttl, limit: auth.limit }).toEqual({ ttl: 60_000, limit: 5 });
    expect(auth.skipIf!(contextOf({ ip: '10.0.0.1' }))).toBe(false);
    expect(auth.skipIf!(contextOf({ caller: caller('starter') }))).toBe(true);
    expect(await auth.getTracker!({ ip: '10.0.0.1' }, contextOf({ ip: '10.0.0.1' }))).toBe('auth:ip:10.0.0.1');
  });
});

describe('the open throttler', () => {
  it('limits open file and webhook routes per address per minute, on a budget apart from sign-in', async () => {
    const { open, auth } = setup({ OPEN_RATE_LIMIT_PER_MINUTE: '7' });
    expect({ ttl: open.ttl, limit: open.limit }).toEqual({ ttl: 60_000, limit: 7 });
    expect(setup().open.limit).toBe(600);
    const media = { ip: '10.0.0.1', openLimit: true };
    expect(open.skipIf!(contextOf(media))).toBe(false);
    expect(auth.skipIf!(contextOf(media))).toBe(true);
    expect(open.skipIf!(contextOf({ ip: '10.0.0.1' }))).toBe(true);
    expect(await open.getTracker!(media, contextOf(media))).toBe('open:ip:10.0.0.1');
  });
});

describe('throttler keys and storage', () => {
  it('keys a tracker the same on every route, so a workspace has one budget', () => {
    const { options } = setup();
    const req = { caller: caller('starter') };
    expect(options.generateKey!(contextOf(req, 'me'), 'ws:x', 'plan')).toBe(options.generateKey!(contextOf(req, 'credits'), 'ws:x', 'plan'));
  });

  it('counts the same workspace counter as the session check, and not again for a request it counted', async () => {
    const { options, limiter } = setup();
    const who = caller('starter');
    const tracker = `ws:${who.workspaceId}`;
    const { count } = await limiter.hitWorkspace(who.workspaceId);
    const counted = options.generateKey!(contextOf({ caller: who, countedHits: count }), tracker, 'plan');
    expect((await options.storage!.increment(counted, 60_000, 60, 60_000, 'plan')).totalHits).toBe(1);
    const uncounted = options.generateKey!(contextOf({ caller: who }), tracker, 'plan');
    expect((await options.storage!.increment(uncounted, 60_000, 60, 60_000, 'plan')).totalHits).toBe(2);
    expect((await limiter.hitWorkspace(who.workspaceId)).count).toBe(3);
  });
});
