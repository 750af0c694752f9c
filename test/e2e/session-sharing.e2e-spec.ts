import { describe, expect, it } from '@jest/globals';
import { api, loginAdmin, registerUser, setPlan } from '../helpers/api.js';
import { inviteAndAccept, switchTo } from '../helpers/invitations.js';
import { twoInstancesSharingRedis } from '../helpers/server.js';

const PASSWORD = 'correct-horse-battery';

/**
 * Each instance remembers the session and API key checks it made, and reuses one only while the
 * workspace's access stamp in Redis is unchanged. These tests warm both instances' memory first,
 * change the session, key, membership, role or plan through instance A, and expect B (and A) to see
 * the change on their very next request: well within the second the interface promises.
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

  it('refuses on both instances an API key revoked on A, on its very next request; the workspace\'s other key goes on', async () => {
    const { a, b } = servers;
    const owner = await registerUser(a);
    await setPlan(a, await loginAdmin(a), owner.workspace.id, 'agency');
    const keys = [];
    for (const name of ['revoked', 'kept']) {
      const created = await api(a).post('/api-keys').set(owner.auth).send({ name, scopes: ['characters:read'] });
      expect(created.status).toBe(201);
      keys.push({ id: created.body.api_key.id as string, auth: { Authorization: `Bearer ${created.body.key}` } });
    }
    const [revoked, kept] = keys;
    // Three requests on each instance: the first reads the key, the second confirms it under the stamp, the third is answered from memory.
    for (const server of [a, b]) for (let i = 0; i < 3; i++) expect((await api(server).get('/public/characters').set(revoked.auth)).status).toBe(200);

    expect((await api(a).delete(`/api-keys/${revoked.id}`).set(owner.auth)).status).toBe(204);
    const answered = Date.now();

    for (const server of [b, a]) {
      const refused = await api(server).get('/public/characters').set(revoked.auth);
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('unauthorized');
    }
    expect(Date.now() - answered).toBeLessThan(1_000);
    expect((await api(b).get('/public/characters').set(kept.auth)).status).toBe(200);
  });

  it('applies on B a role lowered on A at once, and refuses a member removed on A on the next request', async () => {
    const { a, b } = servers;
    const owner = await registerUser(a);
    await setPlan(a, await loginAdmin(a), owner.workspace.id, 'agency');
    const member = await registerUser(a);
    await inviteAndAccept(a, owner.auth, owner.workspace.id, member, 'editor');
    const asMember = await switchTo(a, member.auth, owner.workspace.id);
    for (let i = 0; i < 3; i++) expect((await api(b).get('/characters').set(asMember)).status).toBe(200);
    expect((await api(b).post('/characters').set(asMember).send({ name: 'By the editor', niche: 'fitness' })).status).toBe(201);

    expect((await api(a).put(`/organizations/${owner.workspace.id}/members/${member.user.id}`).set(owner.auth).send({ role: 'viewer' })).status).toBe(200);
    const lowered = await api(b).post('/characters').set(asMember).send({ name: 'As a viewer', niche: 'fitness' });
    expect(lowered.status).toBe(403);
    expect(lowered.body.code).toBe('insufficient_role');
    for (let i = 0; i < 2; i++) expect((await api(b).get('/characters').set(asMember)).status).toBe(200);

    expect((await api(a).delete(`/organizations/${owner.workspace.id}/members/${member.user.id}`).set(owner.auth)).status).toBe(204);
    const answered = Date.now();
    for (const server of [b, a]) expect((await api(server).get('/characters').set(asMember)).status).toBe(401);
    expect(Date.now() - answered).toBeLessThan(1_000);
    // The member's own workspace is untouched.
    expect((await api(b).get('/characters').set(member.auth)).status).toBe(200);
  });
});
