// @e2e services-only: an API and a worker on PostgreSQL + Redis in both passes.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, connectSandbox, grantCredits, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { inviteAndAccept } from '../helpers/invitations.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { authedSocket, type TestSocket } from '../helpers/socket.js';

type Auth = { Authorization: string };
const CHAR = missingId('char');
const CNT = missingId('cnt');

/** A write of every context, with the lowest role that may make it; the guard answers before the body is read. */
const WRITES: Array<{ what: string; method: 'post' | 'delete'; path: string; min: 'editor' | 'admin' }> = [
  { what: 'characters POST', method: 'post', path: '/characters', min: 'editor' },
  { what: 'content generate', method: 'post', path: '/content/generate', min: 'editor' },
  { what: 'moderation approve', method: 'post', path: `/characters/${CHAR}/content/${CNT}/approve`, min: 'editor' },
  { what: 'schedule', method: 'post', path: `/content/${CNT}/schedule`, min: 'editor' },
  { what: 'publish-now', method: 'post', path: `/schedule/${missingId('sch')}/publish-now`, min: 'editor' },
  { what: 'lora train', method: 'post', path: `/characters/${CHAR}/lora/train`, min: 'editor' },
  { what: 'voice preview', method: 'post', path: `/characters/${CHAR}/voice/preview`, min: 'editor' },
  { what: 'integrations DELETE', method: 'delete', path: '/integrations/instagram', min: 'admin' },
  { what: 'api-keys POST', method: 'post', path: '/api-keys', min: 'admin' },
  { what: 'marketplace listing POST', method: 'post', path: '/marketplace/listings', min: 'admin' },
];
const READS = ['/characters', '/content/queue', '/schedule', '/billing/ledger', '/integrations/instagram', '/auth/me'];

describe('workspace roles across every context (contract §14)', () => {
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let owner: TestUser;
  let ws: string;
  const as: Record<'admin' | 'editor' | 'viewer', { user: TestUser; auth: Auth }> = {} as never;
  const sockets: TestSocket[] = [];

  async function join(role: 'admin' | 'editor' | 'viewer'): Promise<{ user: TestUser; auth: Auth }> {
    const user = await registerUser(server);
    await inviteAndAccept(server, owner.auth, ws, user, role);
    const sw = await api(server).post('/auth/switch-workspace').set(user.auth).send({ workspace_id: ws });
    if (sw.status !== 200) throw new Error(`switch failed: ${sw.status}`);
    return { user, auth: { Authorization: `Bearer ${sw.body.access_token}` } };
  }

  beforeAll(async () => {
    // Shared PostgreSQL and Redis: the concurrent test below is about them.
    backing = await createBacking({ services: true });
    // Sockets check their credential again within SOCKET_RECHECK_SECONDS of an access stamp moving.
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000', SOCKET_RECHECK_SECONDS: '1' });
    worker = await startWorker(backing);
    const admin = await loginAdmin(server);
    owner = await registerUser(server);
    ws = owner.workspace.id;
    await setPlan(server, admin, ws, 'agency');
    await grantCredits(server, admin, ws, 500);
    for (const role of ['admin', 'editor', 'viewer'] as const) as[role] = await join(role);
  }, 120_000);

  afterAll(async () => {
    for (const s of sockets) s.close();
    await worker?.stop();
    await server?.stop();
    await backing?.cleanup();
  });

  it.each(WRITES)('a viewer is refused $what with insufficient_role', async ({ method, path, min }) => {
    const res = await api(server)[method](path).set(as.viewer.auth).send({});
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_role', details: { required: min } });
  });

  it('a viewer reads every context', async () => {
    for (const path of READS) expect([path, (await api(server).get(path).set(as.viewer.auth)).status]).toEqual([path, 200]);
  });

  it('an editor is refused admin writes but passes the role check of editor writes', async () => {
    for (const w of WRITES) {
      const res = await api(server)[w.method](w.path).set(as.editor.auth).send({});
      if (w.min === 'admin') expect([w.what, res.body.code]).toEqual([w.what, 'insufficient_role']);
      else expect([w.what, res.body.code]).not.toEqual([w.what, 'insufficient_role']);
    }
  });

  it('an admin is refused member management', async () => {
    const paths = [
      api(server).post(`/organizations/${ws}/members`).set(as.admin.auth).send({ email: 'x@e2e.test', role: 'viewer' }),
      api(server).put(`/organizations/${ws}/members/${as.viewer.user.user.id}`).set(as.admin.auth).send({ role: 'editor' }),
      api(server).delete(`/organizations/${ws}/members/${as.viewer.user.user.id}`).set(as.admin.auth),
    ];
    for (const res of await Promise.all(paths)) expect(res.body).toMatchObject({ code: 'insufficient_role', details: { required: 'owner' } });
  });

  it('two members generating and scheduling at once keep the credits, the ledger and the schedule consistent', async () => {
    const character = await api(server).post('/characters').set(as.editor.auth).send({ name: 'Mia', niche: 'travel', settings: { autopilot: true } });
    expect(character.status).toBe(201);
    const before = (await api(server).get('/billing/credits').set(owner.auth)).body.balance as number;
    const ledgerBefore = (await api(server).get('/billing/ledger?page_size=100').set(owner.auth)).body.total as number;
    const body = { character_id: character.body.character.id, platform: 'instagram', prompt: 'Sunrise run', type: 'single' };
    const answers = await Promise.all(
      [owner.auth, as.editor.auth, owner.auth, as.editor.auth, as.admin.auth, as.editor.auth].map((auth) => api(server).post('/content/generate').set(auth).send(body)),
    );
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 201));
    const after = (await api(server).get('/billing/credits').set(owner.auth)).body.balance as number;
    const ledger = (await api(server).get('/billing/ledger?page_size=100').set(owner.auth)).body;
    const fresh = (ledger.entries as Array<{ amount: number }>).slice(0, ledger.total - ledgerBefore);
    expect(fresh).toHaveLength(answers.length);
    expect(fresh.reduce((sum, e) => sum + e.amount, 0)).toBe(after - before);
    expect(after).toBeLessThan(before);

    // Both schedule the (autopilot-approved) items at once, to the workspace's one connection.
    await connectSandbox(server, owner, 'instagram');
    const items = await Promise.all(
      answers.map((r) => waitFor(async () => {
        const item = (await api(server).get(`/content/${r.body.item.id}`).set(owner.auth)).body.item;
        return item?.status === 'approved' ? item : undefined;
      }, 60_000, 'an approved item')),
    );
    const at = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const scheduled = await Promise.all(items.map((item, i) => api(server).post(`/content/${item.id}/schedule`).set(i % 2 ? as.editor.auth : owner.auth).send({ scheduled_at: at })));
    expect(scheduled.map((r) => r.status)).toEqual(items.map(() => 201));
    const ids = new Set(scheduled.flatMap((r) => (r.body.scheduled_posts as Array<{ id: string }>).map((p) => p.id)));
    expect(ids.size).toBe(items.length);
    const list = await api(server).get('/schedule?page_size=100').set(as.viewer.auth);
    expect(list.status).toBe(200);
    expect((list.body.scheduled_posts as Array<{ id: string }>).filter((p) => ids.has(p.id))).toHaveLength(items.length);
  });

  it('a removed member is refused at once: session 401, API key 401, their socket hears nothing more while the members\' sockets all hear', async () => {
    const m = await join('admin');
    const key = await api(server).post('/api-keys').set(m.auth).send({ name: 'leaving', scopes: ['credits:read'] });
    expect(key.status).toBe(201);
    const keyAuth = { Authorization: `Bearer ${key.body.key}` };
    expect((await api(server).get('/public/credits').set(keyAuth)).status).toBe(200);
    const socket = await authedSocket(server.wsUrl, m.auth.Authorization.slice('Bearer '.length));
    sockets.push(socket);
    expect(socket.messages.some((msg) => msg.type === 'auth.ok')).toBe(true);

    expect((await api(server).delete(`/organizations/${ws}/members/${m.user.user.id}`).set(owner.auth)).status).toBe(204);
    await waitFor(async () => (await api(server).get('/characters').set(m.auth)).status === 401, 10_000, 'the session refused');
    expect((await api(server).get('/public/credits').set(keyAuth)).status).toBe(401);

    // The socket's credential is checked again within the recheck bound; from then on it hears nothing.
    expect((await Promise.race([socket.closed, new Promise((r) => setTimeout(() => r(null), 10_000))])) as { code: number } | null).toMatchObject({ code: 4401 });
    const heardBefore = socket.messages.length;
    // Two members still in the workspace, connected at once: each hears the job's events.
    const members = await Promise.all([owner.token, as.viewer.auth.Authorization.slice('Bearer '.length)].map((t) => authedSocket(server.wsUrl, t)));
    sockets.push(...members);
    const character = (await api(server).post('/characters').set(owner.auth).send({ name: 'Lea', niche: 'food' })).body.character.id as string;
    const gen = await api(server).post('/content/generate').set(owner.auth).send({ character_id: character, platform: 'instagram', prompt: 'After', type: 'single' });
    expect(gen.status).toBe(201);
    await waitFor(async () => ['ready', 'approved', 'rejected', 'failed'].includes((await api(server).get(`/content/${gen.body.item.id}`).set(owner.auth)).body.item?.status), 30_000, 'the job to finish');
    for (const member of members) await member.waitFor((msg) => JSON.stringify(msg).includes(gen.body.job.id), 10_000);
    const heard = JSON.stringify(socket.messages.slice(heardBefore));
    expect(heard).not.toContain(gen.body.item.id);
    expect(heard).not.toContain(gen.body.job.id);
  });
});
