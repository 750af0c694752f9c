import { describe, expect, it, jest } from '@jest/globals';
import { createPersonaClient, login, MfaRequiredError } from './client.js';
import { PersonaApiError, SessionRefreshError, unwrap } from './errors.js';
import type { SessionTokens } from './session-auth.js';
import { apiError, BASE, fakeApi, json } from './test-support/fake-api.js';

const CREDITS = { balance: 42, plan: 'agency' };
const signedIn = (n: number) => ({ user: { id: 'usr_1', email: 'a@b.test' }, access_token: `access-${n}`, refresh_token: `refresh-${n}`, token_type: 'Bearer', expires_in: 3600 });

/**
 * An API with one session: access token `access-<n>` is valid until `expire()`, and refresh token
 * `refresh-<n>` trades for generation n+1 (after `refreshDelayMs`); any other refresh token is reuse.
 */
function sessionApi(opts: { refreshDelayMs?: number; refreshAnswer?: () => Response } = {}) {
  let generation = 1;
  let accessValid = true;
  const api = fakeApi(async (r) => {
    if (r.path === '/auth/refresh') {
      if (opts.refreshAnswer) return opts.refreshAnswer();
      await new Promise((resolve) => setTimeout(resolve, opts.refreshDelayMs ?? 0));
      if (JSON.parse(r.body).refresh_token !== `refresh-${generation}`) return apiError(401, 'refresh_token_reused');
      generation += 1;
      accessValid = true;
      return json(200, signedIn(generation));
    }
    if (!accessValid || r.authorization !== `Bearer access-${generation}`) return apiError(401, 'unauthorized', 'The access token expired.');
    if (r.path === '/public/credits') return apiError(401, 'api_key_required');
    if (r.path === '/characters' && r.method === 'POST') return json(201, { character: { id: 'char_1', ...JSON.parse(r.body) } });
    return json(200, CREDITS);
  });
  return { api, expire: () => (accessValid = false) };
}

const refreshes = (api: ReturnType<typeof fakeApi>) => api.to('POST', '/auth/refresh').length;

describe('createPersonaClient with an API key', () => {
  it('sends the key as a bearer token and unwraps the typed data', async () => {
    const api = fakeApi(() => json(200, CREDITS));
    const client = createPersonaClient({ baseUrl: `${BASE}/`, apiKey: 'psk_test' }, api.fetch);
    const credits = unwrap(await client.GET('/public/credits'));
    expect(credits).toEqual(CREDITS);
    expect(api.seen).toEqual([{ method: 'GET', path: '/public/credits', authorization: 'Bearer psk_test', body: '' }]);
    expect(client.auth).toMatchObject({ mode: 'apiKey', apiUrl: `${BASE}/api/v1` });
    expect(client.auth.credential()).toBe('psk_test');
  });

  it('turns an error answer into a PersonaApiError with its code, message and details', async () => {
    const body = { statusCode: 400, code: 'validation_failed', message: 'name is required', details: [{ field: 'name', message: 'name is required' }], request_id: 'req_1' };
    const client = createPersonaClient({ baseUrl: BASE, apiKey: 'psk_test' }, fakeApi(() => json(400, body)).fetch);
    const error = await client.POST('/public/characters', { body: { niche: 'travel' } as never }).then(unwrap).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersonaApiError);
    expect(error).toMatchObject({ status: 400, code: 'validation_failed', message: 'name is required', requestId: 'req_1', fieldErrors: body.details });
  });

  it('reports an answer that is not the error body as unexpected_response', async () => {
    const client = createPersonaClient({ baseUrl: BASE, apiKey: 'psk_test' }, fakeApi(() => new Response('<html>bad gateway</html>', { status: 502 })).fetch);
    await expect(client.GET('/public/credits').then(unwrap)).rejects.toMatchObject({ status: 502, code: 'unexpected_response', body: '<html>bad gateway</html>' });
  });

  it('answers a 401 as it is: there is nothing to refresh', async () => {
    const api = fakeApi(() => apiError(401, 'unauthorized'));
    const client = createPersonaClient({ baseUrl: BASE, apiKey: 'psk_revoked' }, api.fetch);
    await expect(client.GET('/public/credits').then(unwrap)).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    expect(api.seen).toHaveLength(1);
  });
});

describe('createPersonaClient with a session', () => {
  const tokens = { accessToken: 'access-1', refreshToken: 'refresh-1' };

  it('refreshes on 401 unauthorized, sends the request again with its body, and reports the new pair', async () => {
    const { api, expire } = sessionApi();
    const onTokens = jest.fn<(t: SessionTokens) => void>();
    const client = createPersonaClient({ baseUrl: BASE, session: { ...tokens, onTokens } }, api.fetch);
    expect(unwrap(await client.GET('/billing/credits'))).toEqual(CREDITS);
    expect(refreshes(api)).toBe(0);

    expire();
    const created = unwrap(await client.POST('/characters', { body: { name: 'Nova', niche: 'travel' } as never }));
    expect(created.character).toMatchObject({ id: 'char_1', name: 'Nova', niche: 'travel' });
    expect(api.seen.slice(1).map((r) => [r.method, r.path, r.authorization])).toEqual([
      ['POST', '/characters', 'Bearer access-1'],
      ['POST', '/auth/refresh', null],
      ['POST', '/characters', 'Bearer access-2'],
    ]);
    expect(api.seen[3].body).toBe(api.seen[1].body);
    expect(JSON.parse(api.seen[2].body)).toEqual({ refresh_token: 'refresh-1' });
    expect(onTokens.mock.calls).toEqual([[{ accessToken: 'access-2', refreshToken: 'refresh-2' }]]);
    expect(client.auth.tokens()).toEqual({ accessToken: 'access-2', refreshToken: 'refresh-2' });
    expect(client.auth.credential()).toBe('access-2');
  });

  it('shares one refresh between concurrent 401s (a second refresh with the same token would end the session)', async () => {
    const { api, expire } = sessionApi({ refreshDelayMs: 20 });
    const client = createPersonaClient({ baseUrl: BASE, session: tokens }, api.fetch);
    expire();
    const answers = await Promise.all([1, 2, 3, 4].map(() => client.GET('/billing/credits').then(unwrap)));
    expect(answers).toEqual([CREDITS, CREDITS, CREDITS, CREDITS]);
    expect(refreshes(api)).toBe(1);
    expect(api.to('GET', '/billing/credits').map((r) => r.authorization).sort()).toEqual([
      ...Array(4).fill('Bearer access-1'),
      ...Array(4).fill('Bearer access-2'),
    ]);
    // A request refused with the old token after the refresh ended uses the new token, without refreshing again.
    expire();
    await Promise.all([client.GET('/billing/credits'), client.GET('/billing/credits')]);
    expect(refreshes(api)).toBe(2);
  });

  it('sends the request again only once: a second 401 is the answer', async () => {
    const api = fakeApi((r) => (r.path === '/auth/refresh' ? json(200, signedIn(2)) : apiError(401, 'unauthorized')));
    const client = createPersonaClient({ baseUrl: BASE, session: tokens }, api.fetch);
    await expect(client.GET('/billing/credits').then(unwrap)).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    expect(api.seen.map((r) => r.path)).toEqual(['/billing/credits', '/auth/refresh', '/billing/credits']);
  });

  it('does not refresh for a 401 that a new token cannot change (a session on a /public route)', async () => {
    const { api } = sessionApi();
    const client = createPersonaClient({ baseUrl: BASE, session: tokens }, api.fetch);
    await expect(client.GET('/public/credits').then(unwrap)).rejects.toMatchObject({ code: 'api_key_required' });
    expect(refreshes(api)).toBe(0);
  });

  it('throws a SessionRefreshError when the refresh is refused, and does not try again with the dead token', async () => {
    const api = fakeApi((r) => (r.path === '/auth/refresh' ? apiError(401, 'refresh_token_reused', 'Session ended.') : apiError(401, 'unauthorized')));
    const onTokens = jest.fn<(t: SessionTokens) => void>();
    const client = createPersonaClient({ baseUrl: BASE, session: { ...tokens, onTokens } }, api.fetch);
    const [first, second] = await Promise.all([client.GET('/billing/credits').catch((e: unknown) => e), client.GET('/billing/credits').catch((e: unknown) => e)]);
    for (const error of [first, second]) {
      expect(error).toBeInstanceOf(SessionRefreshError);
      expect(error).toMatchObject({ status: 401, code: 'refresh_token_reused', message: 'Session ended.' });
    }
    await expect(client.GET('/billing/credits')).rejects.toBeInstanceOf(SessionRefreshError);
    expect(refreshes(api)).toBe(1);
    expect(onTokens).not.toHaveBeenCalled();
  });

  it('tries a refresh again after one that failed for a passing reason (rate limited)', async () => {
    let refused = true;
    const { api, expire } = sessionApi({ refreshAnswer: () => (refused ? apiError(429, 'rate_limited') : json(200, signedIn(2))) });
    const client = createPersonaClient({ baseUrl: BASE, session: tokens }, api.fetch);
    expire();
    await expect(client.GET('/billing/credits')).rejects.toMatchObject({ name: 'SessionRefreshError', code: 'rate_limited' });
    refused = false;
    await client.GET('/billing/credits');
    expect(refreshes(api)).toBe(2);
    expect(client.auth.credential()).toBe('access-2');
  });
});

describe('createPersonaClient without credentials', () => {
  it('calls the open routes with no Authorization header', async () => {
    const api = fakeApi(() => json(201, signedIn(1)));
    const client = createPersonaClient({ baseUrl: BASE }, api.fetch);
    unwrap(await client.POST('/auth/register', { body: { email: 'a@b.test', password: 'pw', accept_terms: true, accept_privacy: true } as never }));
    expect(api.seen[0]).toMatchObject({ method: 'POST', path: '/auth/register', authorization: null });
    expect([client.auth.mode, client.auth.credential()]).toEqual(['anonymous', undefined]);
  });
});

describe('login', () => {
  it('answers a session client holding the new pair', async () => {
    const api = fakeApi((r) => (r.path === '/auth/login' ? json(200, signedIn(7)) : json(200, CREDITS)));
    const onTokens = jest.fn<(t: SessionTokens) => void>();
    const client = await login(BASE, 'a@b.test', 'correct horse', { fetch: api.fetch, onTokens });
    expect(JSON.parse(api.seen[0].body)).toEqual({ email: 'a@b.test', password: 'correct horse' });
    await client.GET('/auth/me');
    expect(api.seen[1].authorization).toBe('Bearer access-7');
    expect(client.auth.mode).toBe('session');
    expect(onTokens).toHaveBeenCalledWith({ accessToken: 'access-7', refreshToken: 'refresh-7' });
  });

  it('throws invalid_credentials as a PersonaApiError, and a two-factor challenge as MfaRequiredError', async () => {
    const wrong = fakeApi(() => apiError(401, 'invalid_credentials'));
    await expect(login(BASE, 'a@b.test', 'nope', { fetch: wrong.fetch })).rejects.toMatchObject({ name: 'PersonaApiError', code: 'invalid_credentials' });
    const mfa = fakeApi(() => json(200, { mfa_required: true, mfa_token: 'mfa_1', expires_in: 300 }));
    const error = await login(BASE, 'a@b.test', 'right', { fetch: mfa.fetch }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MfaRequiredError);
    expect(error).toMatchObject({ mfaToken: 'mfa_1', expiresIn: 300 });
  });
});
