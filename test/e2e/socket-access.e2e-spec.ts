import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { api, grantCredits, loginAdmin, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, twoInstancesSharingRedis, type Backing, type TestServer } from '../helpers/server.js';
import { closedWithin, authedSocket, openSocket, type TestSocket } from '../helpers/socket.js';
import { createCharacter, startFaceEmbeddingJob } from '../fakes/queue-e2e-jobs.js';

const UNAUTHORIZED_CLOSE = 4401;
const FORBIDDEN_CLOSE = 4403;
/** The server's bound: an open socket's credential is checked again at least this often. */
const RECHECK_SECONDS = 8;
/**
 * Logout, revocation and plan changes move the workspace's access stamp, which the sockets' watch
 * reads every second: they must close well inside the bound, not at the next periodic check.
 */
const STAMPED_CLOSE_MS = 4_000;
const PASSWORD = 'correct-horse-battery';

/** A round trip on an open socket: every event published before it has been received. */
async function roundTrip(s: TestSocket): Promise<void> {
  const before = s.messages.filter((m) => m.type === 'pong').length;
  s.send({ type: 'ping' });
  await s.waitFor(() => s.messages.filter((m) => m.type === 'pong').length > before);
}

const eventTypes = (s: TestSocket) => new Set(s.messages.map((m) => String(m.type)).filter((t) => !t.startsWith('auth.') && t !== 'pong'));

describe('sockets follow the HTTP rules (contract §7)', () => {
  let backing: Backing;
  let server: TestServer;
  let admin: { Authorization: string };
  const sockets: TestSocket[] = [];
  const track = (s: TestSocket): TestSocket => {
    sockets.push(s);
    return s;
  };
  const login = async (user: TestUser): Promise<string> => {
    const res = await api(server).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
    expect(res.status).toBe(200);
    return res.body.access_token as string;
  };
  const createKey = async (user: TestUser, scopes: string[], body: Record<string, unknown> = {}): Promise<{ id: string; key: string }> => {
    const res = await api(server).post('/api-keys').set(user.auth).send({ name: scopes.join(' '), scopes, ...body });
    expect(res.status).toBe(201);
    return { id: res.body.api_key.id as string, key: res.body.key as string };
  };
  const agencyUser = async (): Promise<TestUser> => {
    const user = await registerUser(server);
    await setPlan(server, admin, user.workspace.id, 'agency');
    return user;
  };

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, {
      RUN_JOBS_IN_API: 'true', AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '20', SOCKET_RECHECK_SECONDS: String(RECHECK_SECONDS),
    });
    admin = await loginAdmin(server);
  }, 90_000);
  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await server?.stop();
    await backing?.cleanup();
  });

  it('closes a session’s sockets with 4401 after its logout, and they receive nothing more; another session’s socket goes on', async () => {
    const user = await registerUser(server);
    const otherToken = await login(user);
    const [ended, alsoEnded, other] = await Promise.all([
      authedSocket(server.wsUrl, user.token), authedSocket(server.wsUrl, user.token), authedSocket(server.wsUrl, otherToken),
    ]).then((all) => all.map(track));
    expect([ended, alsoEnded, other].map((s) => s.messages[0].type)).toEqual(['auth.ok', 'auth.ok', 'auth.ok']);

    expect((await api(server).post('/auth/logout').set(user.auth)).status).toBe(204);
    for (const s of [ended, alsoEnded]) {
      expect(await closedWithin(s, STAMPED_CLOSE_MS)).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'unauthorized' });
      expect(s.messages.at(-1)).toEqual({ type: 'auth.error', code: 'unauthorized' });
    }
    const heard = ended.messages.length;

    // The workspace goes on producing events: the other session's socket gets them, the closed ones nothing.
    const job = await startFaceEmbeddingJob(server, { auth: { Authorization: `Bearer ${otherToken}` } }, await createCharacter(server, { auth: { Authorization: `Bearer ${otherToken}` } }));
    await other.waitFor((m) => m.type === 'job.completed' && m.job.id === job.id, 20_000);
    await roundTrip(other);
    expect(ended.messages).toHaveLength(heard);
    expect(ended.messages.some((m) => String(m.type).startsWith('job.'))).toBe(false);
  });

  it('closes an API key’s sockets with 4401 after the key is revoked; the workspace’s other key goes on', async () => {
    const user = await agencyUser();
    const [revoked, kept] = await Promise.all([createKey(user, ['content:read']), createKey(user, ['content:read'])]);
    const gone = track(await authedSocket(server.wsUrl, revoked.key));
    const stays = track(await authedSocket(server.wsUrl, kept.key));
    expect([gone.messages[0].type, stays.messages[0].type]).toEqual(['auth.ok', 'auth.ok']);

    expect((await api(server).delete(`/api-keys/${revoked.id}`).set(user.auth)).status).toBe(204);
    expect(await closedWithin(gone, STAMPED_CLOSE_MS)).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'unauthorized' });
    const heard = gone.messages.length;

    const job = await startFaceEmbeddingJob(server, user, await createCharacter(server, user));
    await stays.waitFor((m) => m.type === 'job.completed' && m.job.id === job.id, 20_000);
    await roundTrip(stays);
    expect(gone.messages).toHaveLength(heard);
    // And the revoked key cannot open a new one.
    const again = track(await authedSocket(server.wsUrl, revoked.key));
    expect(again.messages[0]).toEqual({ type: 'auth.error', code: 'unauthorized' });
    expect((await again.closed).code).toBe(UNAUTHORIZED_CLOSE);
  });

  it('closes an API key’s socket with 4401 once the key expires, within the bound', async () => {
    const user = await agencyUser();
    const expiresAt = new Date(Date.now() + 2_000);
    const { key } = await createKey(user, ['content:generate'], { expires_at: expiresAt.toISOString() });
    const s = track(await authedSocket(server.wsUrl, key));
    expect(s.messages[0].type).toBe('auth.ok');
    const closed = await closedWithin(s, 2_000 + (RECHECK_SECONDS + 2) * 1000);
    expect(closed).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'unauthorized' });
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt.getTime());
  }, 30_000);

  it('refuses a key whose scopes read no event (characters only) with auth.error insufficient_scope and 4403', async () => {
    const user = await agencyUser();
    const { key } = await createKey(user, ['characters:read', 'characters:write']);
    const s = track(await openSocket(server.wsUrl));
    s.send({ type: 'auth', token: key });
    expect(await s.waitFor((m) => m.type.startsWith('auth.'))).toEqual({ type: 'auth.error', code: 'insufficient_scope' });
    expect(await s.closed).toEqual({ code: FORBIDDEN_CLOSE, reason: 'insufficient_scope' });
    expect(s.messages).toHaveLength(1);
  });

  it('closes a key’s socket with 4401 when its workspace moves to Starter, and refuses a new one with plan_required (4403)', async () => {
    const user = await agencyUser();
    const { key } = await createKey(user, ['content:read']);
    const keySocket = track(await authedSocket(server.wsUrl, key));
    const sessionSocket = track(await authedSocket(server.wsUrl, user.token));
    expect([keySocket.messages[0].type, sessionSocket.messages[0].type]).toEqual(['auth.ok', 'auth.ok']);

    await setPlan(server, admin, user.workspace.id, 'starter');
    expect(await closedWithin(keySocket, STAMPED_CLOSE_MS)).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'plan_required' });
    expect(keySocket.messages.at(-1)).toEqual({ type: 'auth.error', code: 'plan_required' });
    // HTTP answers the same key 403 plan_required; a new socket is refused likewise.
    expect((await api(server).get('/public/credits').set({ Authorization: `Bearer ${key}` })).body.code).toBe('plan_required');
    const refused = track(await openSocket(server.wsUrl));
    refused.send({ type: 'auth', token: key });
    expect(await refused.waitFor((m) => m.type.startsWith('auth.'))).toEqual({ type: 'auth.error', code: 'plan_required' });
    expect((await refused.closed).code).toBe(FORBIDDEN_CLOSE);
    // The session's socket is not an API key's: the plan does not close it.
    await roundTrip(sessionSocket);
  });

  it('sends an API key only the events its scopes can read: content:read gets content.updated and job.*, not post.updated', async () => {
    const user = await agencyUser();
    await grantCredits(server, admin, user.workspace.id, 200);
    const [reader, publisher] = await Promise.all([createKey(user, ['content:read']), createKey(user, ['content:publish'])]);
    const readSocket = track(await authedSocket(server.wsUrl, reader.key));
    const publishSocket = track(await authedSocket(server.wsUrl, publisher.key));
    const sessionSocket = track(await authedSocket(server.wsUrl, user.token));

    // content.updated and job.*: an item of an autopilot character, generated and approved.
    const characterRes = await api(server).post('/characters').set(user.auth).send({ name: 'Scoped', niche: 'fashion', settings: { autopilot: true } });
    expect(characterRes.status).toBe(201);
    const generated = await api(server).post('/content/generate').set(user.auth).send({ character_id: characterRes.body.character.id, platform: 'instagram', prompt: 'Linen suit' });
    expect(generated.status).toBe(201);
    const itemId = generated.body.item.id as string;
    await sessionSocket.waitFor((m) => m.type === 'content.updated' && m.item.id === itemId && m.item.status === 'approved', 30_000);

    // post.updated: the sandbox Instagram connection, then the item scheduled.
    const onServer = (url: string) => request(`http://127.0.0.1:${server.port}`).get(new URL(url).pathname + new URL(url).search).redirects(0);
    const authUrl = await api(server).get('/integrations/instagram/auth-url').query({ redirect: '/settings' }).set(user.auth);
    expect(authUrl.status).toBe(200);
    const consent = await onServer(authUrl.body.url as string);
    expect((await onServer(consent.headers.location)).status).toBe(302);
    const scheduled = await api(server).post(`/content/${itemId}/schedule`).set(user.auth).send({ scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(scheduled.status).toBe(201);
    const postId = scheduled.body.scheduled_posts[0].id as string;
    await sessionSocket.waitFor((m) => m.type === 'post.updated' && m.scheduled_post.id === postId);

    await Promise.all([roundTrip(readSocket), roundTrip(publishSocket)]);
    expect(readSocket.messages.some((m) => m.type === 'content.updated' && m.item.id === itemId)).toBe(true);
    expect([...eventTypes(readSocket)].sort()).toEqual(expect.arrayContaining(['content.updated', 'job.completed']));
    expect(eventTypes(readSocket).has('post.updated')).toBe(false);
    expect([...eventTypes(publishSocket)]).toEqual(['post.updated']);
    expect(publishSocket.messages.find((m) => m.type === 'post.updated')!.scheduled_post.id).toBe(postId);
  }, 60_000);
});

describe('a credential ended on one instance closes its sockets on another (shared Redis)', () => {
  const servers = twoInstancesSharingRedis({ AUTH_RATE_LIMIT_PER_MINUTE: '1000' });

  it('closes on B, with 4401, the sockets of a session logged out and of a key revoked on A', async () => {
    const { a, b } = servers;
    const user = await registerUser(a);
    const adminAuth = await loginAdmin(a);
    await setPlan(a, adminAuth, user.workspace.id, 'agency');
    const created = await api(a).post('/api-keys').set(user.auth).send({ name: 'b', scopes: ['content:read'] });
    expect(created.status).toBe(201);
    const other = await api(a).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
    const sessionSocket = await authedSocket(b.wsUrl, user.token);
    const keySocket = await authedSocket(b.wsUrl, created.body.key as string);
    const otherSocket = await authedSocket(b.wsUrl, other.body.access_token as string);
    try {
      expect([sessionSocket, keySocket, otherSocket].map((s) => s.messages[0].type)).toEqual(['auth.ok', 'auth.ok', 'auth.ok']);
      expect((await api(a).post('/auth/logout').set(user.auth)).status).toBe(204);
      expect((await closedWithin(sessionSocket, STAMPED_CLOSE_MS)).code).toBe(UNAUTHORIZED_CLOSE);
      const otherAuth = { Authorization: `Bearer ${other.body.access_token}` };
      expect((await api(a).delete(`/api-keys/${created.body.api_key.id}`).set(otherAuth)).status).toBe(204);
      expect((await closedWithin(keySocket, STAMPED_CLOSE_MS)).code).toBe(UNAUTHORIZED_CLOSE);
      await roundTrip(otherSocket);
    } finally {
      [sessionSocket, keySocket, otherSocket].forEach((s) => s.close());
    }
  });
});
