import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, loginAdmin, registerUser, root, setPlan, type TestUser } from '../helpers/api.js';
import { schemaErrors } from '../helpers/json-schema.js';
import { createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';
import { authedSocket, openSocket, type TestSocket } from '../helpers/socket.js';
import { createCharacter, startFaceEmbeddingJob } from '../fakes/queue-e2e-jobs.js';

const UNAUTHORIZED_CLOSE = 4401;

describe('real-time socket /api/v1/ws', () => {
  let backing: Backing;
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  const sockets: TestSocket[] = [];

  const track = (s: TestSocket): TestSocket => {
    sockets.push(s);
    return s;
  };

  beforeAll(async () => {
    backing = await createBacking();
    // With Redis an API runs no jobs unless told to; this file needs jobs to produce events.
    server = await startServer(backing, { RUN_JOBS_IN_API: 'true' });
    alice = await registerUser(server);
    bob = await registerUser(server);
  });
  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await server?.stop();
    await backing?.cleanup();
  });

  it('answers auth.ok with the user id for a session access token', async () => {
    const s = track(await authedSocket(server.wsUrl, alice.token));
    expect(s.messages[0]).toEqual({ type: 'auth.ok', user_id: alice.user.id });
  });

  it('answers auth.ok with the key creator’s user id for an API key', async () => {
    const carol = await registerUser(server);
    await setPlan(server, await loginAdmin(server), carol.workspace.id, 'agency');
    const created = await api(server).post('/api-keys').set(carol.auth).send({ name: 'socket', scopes: ['content:read'] });
    expect(created.status).toBe(201);
    const s = track(await authedSocket(server.wsUrl, created.body.key));
    expect(s.messages[0]).toEqual({ type: 'auth.ok', user_id: carol.user.id });
  });

  it.each([
    ['an unknown session token', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyX3gifQ.c2lnbmF0dXJl'],
    ['an unknown API key', 'psk_definitely-not-a-key-0000000000000000'],
  ])('answers auth.error and closes 4401 for %s', async (_what, token) => {
    const s = track(await openSocket(server.wsUrl));
    s.send({ type: 'auth', token });
    expect(await s.waitFor((m) => m.type === 'auth.error')).toEqual({ type: 'auth.error', code: 'unauthorized' });
    expect((await s.closed).code).toBe(UNAUTHORIZED_CLOSE);
    expect(s.messages.some((m) => m.type === 'auth.ok')).toBe(false);
  });

  it('closes 4401 when the first message is not an auth message', async () => {
    const s = track(await openSocket(server.wsUrl));
    s.send({ type: 'ping' });
    expect((await s.closed).code).toBe(UNAUTHORIZED_CLOSE);
    expect(s.messages.some((m) => m.type === 'pong')).toBe(false);
  });

  it('closes 4401 when the first message is not JSON', async () => {
    const s = track(await openSocket(server.wsUrl));
    s.send('{"type": "auth", "token": ');
    expect((await s.closed).code).toBe(UNAUTHORIZED_CLOSE);
  });

  it('answers ping with pong once authenticated', async () => {
    const s = track(await authedSocket(server.wsUrl, alice.token));
    s.send({ type: 'ping' });
    expect(await s.waitFor((m) => m.type === 'pong')).toEqual({ type: 'pong' });
  });

  it('refuses an upgrade on any other path', async () => {
    await expect(openSocket(server.wsUrl.replace(/\/ws$/, '/wsx'))).rejects.toThrow();
  });

  it('sends each workspace its own job events and never another workspace’s', async () => {
    const a = track(await authedSocket(server.wsUrl, alice.token));
    const b = track(await authedSocket(server.wsUrl, bob.token));
    const aJob = await startFaceEmbeddingJob(server, alice, await createCharacter(server, alice), 1);
    const bJob = await startFaceEmbeddingJob(server, bob, await createCharacter(server, bob), 2);

    await a.waitFor((m) => m.type === 'job.completed' && m.job.id === aJob.id, 20_000);
    await b.waitFor((m) => m.type === 'job.completed' && m.job.id === bJob.id, 20_000);
    // A round trip on each socket: anything published before it has been received by now.
    a.send({ type: 'ping' });
    b.send({ type: 'ping' });
    await a.waitFor((m) => m.type === 'pong');
    await b.waitFor((m) => m.type === 'pong');

    const jobIds = (s: TestSocket) => new Set(s.messages.filter((m) => String(m.type).startsWith('job.')).map((m) => m.job.id));
    expect([...jobIds(a)]).toEqual([aJob.id]);
    expect([...jobIds(b)]).toEqual([bJob.id]);
  });

  it('sends only messages the AsyncAPI document describes, each matching its payload schema', async () => {
    const served = await root(server).get('/api/docs-asyncapi.json');
    expect(served.status).toBe(200);
    const doc = served.body as { components: { messages: Record<string, { name: string; payload: Record<string, unknown> }> } };
    const s = track(await authedSocket(server.wsUrl, alice.token));
    const job = await startFaceEmbeddingJob(server, alice, await createCharacter(server, alice), 1);
    await s.waitFor((m) => m.type === 'job.completed' && m.job.id === job.id, 20_000);
    s.send({ type: 'ping' });
    await s.waitFor((m) => m.type === 'pong');
    const refused = track(await openSocket(server.wsUrl));
    refused.send({ type: 'auth', token: 'psk_definitely-not-a-key-0000000000000000' });
    await refused.closed;

    const received = [...s.messages, ...refused.messages];
    expect(received.map((m) => m.type)).toEqual(expect.arrayContaining(['auth.ok', 'job.progress', 'job.completed', 'pong', 'auth.error']));
    const wrong = received.flatMap((m) => {
      const described = Object.values(doc.components.messages).find((d) => d.name === m.type);
      return described ? schemaErrors(m, described.payload, doc).map((e) => `${m.type} ${e}`) : [`${m.type}: not in the document`];
    });
    expect(wrong).toEqual([]);
  });
});
