import { describe, expect, it } from '@jest/globals';
import { api, loginAdmin, registerUser, setPlan } from '../helpers/api.js';
import { twoInstancesSharingRedis } from '../helpers/server.js';

const PASSWORD = 'correct-horse-battery';

/**
 * Each instance remembers the session checks it made, and reuses one only while the workspace's
 * access stamp in Redis is unchanged. These tests warm instance B's memory first, change the
 * session or the plan through instance A, and expect B to see the change on its very next request.
 */
describe('session changes made on one instance reach another at once (shared Redis)', () => {
  const servers = twoInstancesSharingRedis({ AUTH_RATE_LIMIT_PER_MINUTE: '1000' });

  it('refuses on B an access token logged out on A; the same workspace\'s other session goes on', async () => {
    const { a, b } = servers;
    const user = await registerUser(a);
    const other = await api(a).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
    const otherAuth = { Authorization: `Bearer ${other.body.access_token}` };
    for (let i = 0; i < 3; i++) expect((await api(b).get('/characters').set(user.auth)).status).toBe(200);
    expect((await api(b).get('/characters').set(otherAuth)).status).toBe(200);

    expect((await api(a).post('/auth/logout').set(user.auth)).status).toBe(204);

    const refused = await api(b).get('/characters').set(user.auth);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthorized');
    expect((await api(b).get('/characters').set(otherAuth)).status).toBe(200);
  });

  it('refuses on B the access tokens of a family revoked on A by a reused refresh token', async () => {
    const { a, b } = servers;
    const user = await registerUser(a);
    const rotated = await api(a).post('/auth/refresh').send({ refresh_token: user.refreshToken });
    expect(rotated.status).toBe(200);
    const rotatedAuth = { Authorization: `Bearer ${rotated.body.access_token}` };
    // GET /characters, not /auth/me: /auth/me reads the session again itself, and would hide a reused check.
    expect((await api(b).get('/characters').set(rotatedAuth)).status).toBe(200);

    const reused = await api(a).post('/auth/refresh').send({ refresh_token: user.refreshToken });
    expect(reused.body.code).toBe('refresh_token_reused');

    expect((await api(b).get('/characters').set(rotatedAuth)).status).toBe(401);
  });

  it('applies on B a plan changed through A on the next request: its limit and its plan-gated routes', async () => {
    const { a, b } = servers;
    const user = await registerUser(a);
    const admin = await loginAdmin(a);
    const before = await api(b).get('/api-keys').set(user.auth);
    expect(before.headers['x-ratelimit-limit']).toBe('60');
    const refused = await api(b).post('/api-keys').set(user.auth).send({ name: 'k', scopes: ['credits:read'] });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('plan_required');

    await setPlan(a, admin, user.workspace.id, 'agency');

    const created = await api(b).post('/api-keys').set(user.auth).send({ name: 'k', scopes: ['credits:read'] });
    expect(created.status).toBe(201);
    expect(created.headers['x-ratelimit-limit']).toBe('300');
    const me = await api(b).get('/auth/me').set(user.auth);
    expect(me.body.workspace.plan).toBe('agency');
  });
});
