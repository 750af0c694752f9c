import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { api, uniqueEmail } from '../helpers/api.js';
import { createBacking, startServer, twoInstancesSharingRedis, waitFor, type Backing, type TestServer } from '../helpers/server.js';

/**
 * Fixed windows make a burst that straddles a window boundary pass more than the limit. Each test
 * first makes sure at least this many seconds of the current window are left for its burst.
 */
const MIN_SECONDS_LEFT = 20;

interface Account {
  auth: { Authorization: string };
}

/** Registers without calling any authenticated route, so the workspace has spent nothing yet. */
async function signUp(server: TestServer): Promise<Account> {
  const res = await api(server)
    .post('/auth/register')
    .send({ email: uniqueEmail('rl'), password: 'correct-horse-battery', accept_terms: true, accept_privacy: true });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { auth: { Authorization: `Bearer ${res.body.access_token}` } };
}

function resetSeconds(res: Response): number {
  const reset = Number(res.headers['x-ratelimit-reset']);
  if (!Number.isInteger(reset)) throw new Error(`no X-RateLimit-Reset on ${res.status} ${JSON.stringify(res.body)}`);
  return reset;
}

/**
 * Spends one request of `probe` to read how long the current window lasts; when too little is left,
 * waits for the next window and probes again. Answers the probe response made in the window to use.
 */
async function inFreshEnoughWindow(probe: () => Promise<Response>): Promise<Response> {
  const first = await probe();
  const left = resetSeconds(first);
  if (left >= MIN_SECONDS_LEFT) return first;
  const nextWindow = Date.now() + left * 1000;
  await waitFor(async () => Date.now() >= nextWindow, (left + 5) * 1000, 'the next rate-limit window');
  const second = await probe();
  expect(resetSeconds(second)).toBeGreaterThanOrEqual(MIN_SECONDS_LEFT);
  return second;
}

function expectWindowHeaders(res: Response, policy: string, limit: number, remaining: number): void {
  expect(res.headers['ratelimit-policy']).toBe(`"${policy}";q=${limit};w=60`);
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining));
  const reset = resetSeconds(res);
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
  expect(res.headers.ratelimit).toBe(`"${policy}";r=${remaining};t=${reset}`);
}

function expectRateLimited(res: Response, policy: string, limit: number): void {
  expect(res.status).toBe(429);
  expect(res.body.code).toBe('rate_limited');
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expectWindowHeaders(res, policy, limit, 0);
}

/** Routes of different contexts; all count against the same workspace budget, whatever they answer. */
const ROUTES: Array<{ call: (server: TestServer, auth: Account['auth']) => Promise<Response>; status: number }> = [
  { call: (s, a) => api(s).get('/auth/me').set(a), status: 200 },
  { call: (s, a) => api(s).get('/characters').set(a), status: 200 },
  { call: (s, a) => api(s).get('/billing/credits').set(a), status: 200 },
  { call: (s, a) => api(s).get('/api-keys').set(a), status: 200 },
  { call: (s, a) => api(s).post('/api-keys').set(a).send({ name: 'k', scopes: ['credits:read'] }), status: 403 },
];

describe('per-workspace rate limit on one instance', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000' });
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('gives a Starter workspace 60 requests a window across routes, then 429 with Retry-After; another workspace is unaffected', async () => {
    const starter = await signUp(server);
    const neighbour = await signUp(server);
    const first = await inFreshEnoughWindow(() => ROUTES[0].call(server, starter.auth));
    expect(first.status).toBe(200);
    expectWindowHeaders(first, 'plan', 60, 59);

    for (let i = 2; i <= 60; i++) {
      const route = ROUTES[i % ROUTES.length];
      const res = await route.call(server, starter.auth);
      expect({ i, status: res.status }).toEqual({ i, status: route.status });
      expectWindowHeaders(res, 'plan', 60, 60 - i);
    }
    for (const route of ROUTES) expectRateLimited(await route.call(server, starter.auth), 'plan', 60);

    const other = await api(server).get('/auth/me').set(neighbour.auth);
    expect(other.status).toBe(200);
    expectWindowHeaders(other, 'plan', 60, 59);
  }, 120_000);
});

describe('per-workspace rate limit shared by two instances through Redis', () => {
  const servers = twoInstancesSharingRedis({ AUTH_RATE_LIMIT_PER_MINUTE: '1000' });

  it('counts 30 requests on each instance against one budget of 60, then both answer 429', async () => {
    const { a, b } = servers;
    const starter = await signUp(a);
    const neighbour = await signUp(b);
    const first = await inFreshEnoughWindow(() => api(a).get('/auth/me').set(starter.auth));
    expectWindowHeaders(first, 'plan', 60, 59);

    for (let i = 2; i <= 60; i++) {
      const server = i % 2 === 0 ? b : a;
      const res = await ROUTES[i % 4].call(server, starter.auth);
      expect({ i, port: server.port, status: res.status }).toEqual({ i, port: server.port, status: 200 });
      expectWindowHeaders(res, 'plan', 60, 60 - i);
    }
    expectRateLimited(await api(a).get('/auth/me').set(starter.auth), 'plan', 60);
    expectRateLimited(await api(b).get('/billing/credits').set(starter.auth), 'plan', 60);

    const other = await api(a).get('/auth/me').set(neighbour.auth);
    expect(other.status).toBe(200);
    expectWindowHeaders(other, 'plan', 60, 59);
  }, 120_000);
});

describe('sign-in limit per client address', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '5' });
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('lets 5 register and login attempts through in a window, then answers 429 rate_limited to both', async () => {
    const login = () => api(server).post('/auth/login').send({ email: uniqueEmail('nobody'), password: 'wrong-password-123' });
    const register = () =>
      api(server)
        .post('/auth/register')
        .send({ email: uniqueEmail('limit'), password: 'correct-horse-battery', accept_terms: true, accept_privacy: true });

    const first = await inFreshEnoughWindow(login);
    expect(first.status).toBe(401);
    expect(first.body.code).toBe('invalid_credentials');
    expectWindowHeaders(first, 'auth', 5, 4);
    const rest: Array<[() => Promise<Response>, number]> = [[register, 201], [login, 401], [register, 201], [login, 401]];
    for (const [i, [attempt, status]] of rest.entries()) {
      const res = await attempt();
      expect({ i, status: res.status }).toEqual({ i, status });
      expectWindowHeaders(res, 'auth', 5, 3 - i);
    }
    expectRateLimited(await register(), 'auth', 5);
    expectRateLimited(await login(), 'auth', 5);
  }, 120_000);
});
