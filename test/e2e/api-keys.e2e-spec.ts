import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { api, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

interface KeyBody {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

describe('API keys and the public API surface', () => {
  let backing: Backing;
  let server: TestServer;
  let admin: { Authorization: string };
  let agency: TestUser;
  let otherAgency: TestUser;
  let starter: TestUser;

  async function agencyUser(): Promise<TestUser> {
    const user = await registerUser(server);
    await setPlan(server, admin, user.workspace.id, 'agency');
    return user;
  }

  async function createKey(user: TestUser, body: Record<string, unknown>): Promise<{ id: string; key: string; body: { api_key: KeyBody; key: string } }> {
    const res = await api(server).post('/api-keys').set(user.auth).send(body);
    if (res.status !== 201) throw new Error(`create key failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.api_key.id, key: res.body.key, body: res.body };
  }

  async function listKeys(user: TestUser): Promise<KeyBody[]> {
    const res = await api(server).get('/api-keys').set(user.auth);
    expect(res.status).toBe(200);
    return res.body.api_keys;
  }

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000' });
    admin = await loginAdmin(server);
    agency = await agencyUser();
    otherAgency = await agencyUser();
    starter = await registerUser(server);
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('creates a key whose secret is shown once, and lists keys newest first without it', async () => {
    const res = await api(server).post('/api-keys').set(agency.auth).send({ name: '  CRM sync  ', scopes: ['credits:read'] });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(['api_key', 'key']);
    const { api_key: created, key } = res.body;
    expect(key).toMatch(/^psk_[A-Za-z0-9_-]{43,}$/);
    expect(created).toEqual({
      id: expect.stringMatching(/^key_[0-9A-Z]{26}$/),
      name: 'CRM sync',
      prefix: key.slice(0, created.prefix.length),
      scopes: ['credits:read'],
      created_at: expect.stringMatching(ISO),
      last_used_at: null,
      expires_at: null,
    });
    expect(created.prefix.length).toBeGreaterThanOrEqual(8);
    expect(created.prefix.length).toBeLessThan(key.length - 20);

    const later = await createKey(agency, { name: 'Second', scopes: ['characters:read'], expires_at: '2099-01-01T00:00:00Z' });
    expect(later.body.api_key.expires_at).toBe('2099-01-01T00:00:00.000Z');

    const listRes = await api(server).get('/api-keys').set(agency.auth);
    expect(listRes.status).toBe(200);
    expect(JSON.stringify(listRes.body)).not.toContain(key.slice(12));
    expect(JSON.stringify(listRes.body)).not.toContain(later.key.slice(12));
    const ids = listRes.body.api_keys.map((k: { id: string }) => k.id);
    expect(ids.indexOf(later.id)).toBeLessThan(ids.indexOf(created.id));
    expect(listRes.body.api_keys.find((k: { id: string }) => k.id === created.id)).toEqual(created);
    for (const k of listRes.body.api_keys) {
      expect(Object.keys(k).sort()).toEqual(['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'scopes']);
    }
    expect(await listKeys(otherAgency)).toEqual([]);
  });

  it('works on GET /public/credits and records when it was last used', async () => {
    const { id, key } = await createKey(agency, { name: 'Reader', scopes: ['characters:read', 'credits:read'] });
    const credits = await api(server).get('/public/credits').set(bearer(key));
    expect(credits.status).toBe(200);
    expect(credits.body).toEqual({ balance: expect.any(Number), plan: 'agency' });

    const used = await waitFor(async () => (await listKeys(agency)).find((k) => k.id === id && k.last_used_at), 10_000, 'last_used_at');
    expect(used.last_used_at).toMatch(ISO);
    expect(Math.abs(Date.parse(used.last_used_at!) - Date.now())).toBeLessThan(60_000);
  });

  it('works on GET /public/characters', async () => {
    const { key } = await createKey(agency, { name: 'Characters', scopes: ['characters:read'] });
    const res = await api(server).get('/public/characters').set(bearer(key));
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.characters)).toBe(true);
  });

  it('enforces the scopes of the key', async () => {
    const { key } = await createKey(agency, { name: 'Credits only', scopes: ['credits:read'] });
    expect((await api(server).get('/public/credits').set(bearer(key))).status).toBe(200);
    const read = await api(server).get('/public/characters').set(bearer(key));
    expect(read.status).toBe(403);
    expect(read.body.code).toBe('insufficient_scope');
    const write = await api(server).post('/public/characters').set(bearer(key)).send({ name: 'Nova', niche: 'travel' });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('insufficient_scope');
  });

  it('keeps sessions and keys on their own surfaces', async () => {
    const { key } = await createKey(agency, { name: 'Surface', scopes: ['credits:read'] });
    const session = await api(server).get('/public/credits').set(agency.auth);
    expect(session.status).toBe(401);
    expect(session.body.code).toBe('api_key_required');
    const attempts: Array<[string, () => Promise<{ status: number; body: { code?: string } }>]> = [
      ['GET /auth/me', () => api(server).get('/auth/me').set(bearer(key))],
      ['GET /api-keys', () => api(server).get('/api-keys').set(bearer(key))],
      ['POST /api-keys', () => api(server).post('/api-keys').set(bearer(key)).send({ name: 'Escalate', scopes: ['credits:read'] })],
      ['GET /billing/credits', () => api(server).get('/billing/credits').set(bearer(key))],
    ];
    for (const [route, call] of attempts) {
      const res = await call();
      expect({ route, status: res.status, code: res.body.code }).toEqual({ route, status: 401, code: 'session_required' });
    }
  });

  it('refuses unknown and malformed keys with 401 unauthorized', async () => {
    for (const key of [`psk_${randomBytes(32).toString('base64url')}`, 'psk_short', `psk_${'a'.repeat(200)}`]) {
      const res = await api(server).get('/public/credits').set(bearer(key));
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    }
    const none = await api(server).get('/public/credits');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('unauthorized');
  });

  it('revokes a key at once', async () => {
    const { id, key } = await createKey(agency, { name: 'Short lived', scopes: ['credits:read'] });
    expect((await api(server).get('/public/credits').set(bearer(key))).status).toBe(200);
    const del = await api(server).delete(`/api-keys/${id}`).set(agency.auth);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const after = await api(server).get('/public/credits').set(bearer(key));
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('unauthorized');
    expect((await listKeys(agency)).map((k) => k.id)).not.toContain(id);
    const again = await api(server).delete(`/api-keys/${id}`).set(agency.auth);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('not_found');
  });

  it("answers 404 for another workspace's key, a missing key and a malformed id, and leaves the key working", async () => {
    const theirs = await createKey(otherAgency, { name: 'Theirs', scopes: ['credits:read'] });
    for (const id of [theirs.id, missingId('key'), 'key_123', missingId('char')]) {
      const res = await api(server).delete(`/api-keys/${id}`).set(agency.auth);
      expect({ id, status: res.status, code: res.body.code }).toEqual({ id, status: 404, code: 'not_found' });
    }
    expect((await api(server).get('/public/credits').set(bearer(theirs.key))).status).toBe(200);
    expect((await listKeys(otherAgency)).map((k) => k.id)).toContain(theirs.id);
  });

  it('needs the agency plan to create keys', async () => {
    const res = await api(server).post('/api-keys').set(starter.auth).send({ name: 'Nope', scopes: ['credits:read'] });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('plan_required');
    expect(await listKeys(starter)).toEqual([]);
  });

  it('refuses the public API once the workspace leaves agency, and lets it still revoke its keys', async () => {
    const user = await agencyUser();
    const { id, key } = await createKey(user, { name: 'Downgraded', scopes: ['credits:read'] });
    expect((await api(server).get('/public/credits').set(bearer(key))).status).toBe(200);
    await setPlan(server, admin, user.workspace.id, 'starter');
    const res = await api(server).get('/public/credits').set(bearer(key));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('plan_required');
    expect((await listKeys(user)).map((k) => k.id)).toEqual([id]);
    expect((await api(server).delete(`/api-keys/${id}`).set(user.auth)).status).toBe(204);
    const revoked = await api(server).get('/public/credits').set(bearer(key));
    expect(revoked.status).toBe(401);
  });

  it.each([
    ['an unknown scope', { name: 'k', scopes: ['credits:read', 'admin:all'] }, 'scopes'],
    ['empty scopes', { name: 'k', scopes: [] }, 'scopes'],
    ['missing scopes', { name: 'k' }, 'scopes'],
    ['a repeated scope', { name: 'k', scopes: ['credits:read', 'credits:read'] }, 'scopes'],
    ['a past expires_at', { name: 'k', scopes: ['credits:read'], expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
    ['a non-timestamp expires_at', { name: 'k', scopes: ['credits:read'], expires_at: 'soon' }, 'expires_at'],
    ['an unknown field', { name: 'k', scopes: ['credits:read'], key_hash: 'x' }, 'key_hash'],
    ['a blank name', { name: '   ', scopes: ['credits:read'] }, 'name'],
    ['a name over 80 characters', { name: 'n'.repeat(81), scopes: ['credits:read'] }, 'name'],
  ])('refuses %s with 400 validation_failed', async (_what, body, field) => {
    const res = await api(server).post('/api-keys').set(agency.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('stops an expired key', async () => {
    const user = await agencyUser();
    const expiresAt = Date.now() + 4_000;
    const { id, key } = await createKey(user, { name: 'Expiring', scopes: ['credits:read'], expires_at: new Date(expiresAt).toISOString() });
    expect((await api(server).get('/public/credits').set(bearer(key))).status).toBe(200);
    const refused = await waitFor(
      async () => {
        const res = await api(server).get('/public/credits').set(bearer(key));
        return res.status === 200 ? undefined : res;
      },
      15_000,
      'the key to expire',
    );
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt - 1_000);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthorized');
    expect((await listKeys(user)).map((k) => k.id)).not.toContain(id);
  });
});
