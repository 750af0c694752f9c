import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { api, grantCredits, loginAdmin, registerUser, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { recordedEvents, takeEveryEvent } from '../helpers/outbox.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { authedSocket } from '../helpers/socket.js';
import { startFakeReplicate, type FakeReplicate } from '../fakes/replicate-server.js';

type Item = Record<string, any>;
type Action = 'approve' | 'reject' | 'regenerate' | 'media/0/approve' | 'media/0/reject';

const ROOT = resolve(import.meta.dirname, '../..');
const ACTIONS: Action[] = ['approve', 'reject', 'regenerate', 'media/0/approve', 'media/0/reject'];
const ACTION_NAME: Record<Action, string> = {
  approve: 'approve', reject: 'reject', regenerate: 'regenerate', 'media/0/approve': 'approve_media', 'media/0/reject': 'reject_media',
};
/** Contract §6: where each moderation action is allowed from. */
const ALLOWED_FROM: Record<Action, string[]> = {
  approve: ['ready', 'rejected'],
  reject: ['ready', 'approved'],
  regenerate: ['ready', 'rejected', 'failed', 'approved'],
  'media/0/approve': ['ready', 'approved', 'rejected'],
  'media/0/reject': ['ready', 'approved', 'rejected'],
};
const TOKEN = 'r8_moderation_test_token';

/** Runs SQL on the backing database: through pg on PostgreSQL; on PGlite with the server stopped. */
async function runSql(backing: Backing, sql: string, params: unknown[]): Promise<void> {
  if (backing.env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    await client.connect();
    try {
      await client.query(sql, params);
    } finally {
      await client.end();
    }
    return;
  }
  const script = `import { PGlite } from '@electric-sql/pglite';
const db = await PGlite.create(process.argv[1]);
await db.query(process.argv[2], JSON.parse(process.argv[3]));
await db.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, join(backing.env.DATA_DIR, 'pglite'), sql, JSON.stringify(params)], { cwd: ROOT, stdio: 'inherit' });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`PGlite SQL exited with ${code}`);
}

/** Moderation: every refused move is 409 and changes nothing; the allowed ones do what §6 says. */
describe('moderation', () => {
  let fake: FakeReplicate;
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let user: TestUser;
  let character: string;
  let env: Record<string, string>;

  const balance = async (): Promise<number> => (await api(server).get('/billing/credits').set(user.auth)).body.balance as number;
  const getItem = async (id: string): Promise<Item> => (await api(server).get(`/content/${id}`).set(user.auth)).body.item as Item;
  const waitForItem = (id: string, statuses: string[], timeoutMs = 30_000): Promise<Item> =>
    waitFor(async () => {
      const item = await getItem(id);
      return statuses.includes(item?.status) ? item : undefined;
    }, timeoutMs, `item ${id} to be ${statuses.join('|')}`);
  const generate = async (body: Record<string, unknown> = {}, who = character): Promise<Item> => {
    const res = await api(server).post('/content/generate').set(user.auth).send({ character_id: who, platform: 'instagram', prompt: 'A walk in the park', ...body });
    expect(res.status).toBe(201);
    return res.body.item as Item;
  };
  const act = (item: Item, action: Action, body: Record<string, unknown> = {}) =>
    api(server).post(`/characters/${item.character_id}/content/${item.id}/${action}`).set(user.auth).send(body);
  const ready = async (body: Record<string, unknown> = {}): Promise<Item> => waitForItem((await generate(body)).id, ['ready']);
  /** The item without its job's moving parts, to compare before and after a refusal. */
  const still = (item: Item): Item => ({ ...item, job: item.job?.id ?? null });

  /** Every refused action on `item` answers 409 with {from, action}, and item and balance stay as they were. */
  const expectRefusals = async (item: Item, status: string): Promise<void> => {
    const before = still(await getItem(item.id));
    expect(before.status).toBe(status);
    const credits = await balance();
    for (const action of ACTIONS.filter((a) => !ALLOWED_FROM[a].includes(status))) {
      const res = await act(item, action, action === 'reject' ? { reason: 'nope' } : {});
      expect([status, action, res.status, res.body.code, res.body.details]).toEqual([
        status, action, 409, 'invalid_state_transition', { from: status, action: ACTION_NAME[action] },
      ]);
    }
    expect(still(await getItem(item.id))).toEqual(before);
    expect(await balance()).toBe(credits);
  };

  const publishThroughDb = async (ids: string[]): Promise<void> => {
    const sql = `UPDATE content_items SET status = 'published', variants_locked = true, published_at = now() WHERE id = ANY($1)`;
    if (backing.env.DATABASE_URL) return runSql(backing, sql, [ids]);
    // PGlite is one process's database: stop the server, change it, start again.
    await server.stop();
    await runSql(backing, sql, [ids]);
    server = await startServer(backing, env);
  };

  beforeAll(async () => {
    fake = await startFakeReplicate({ token: TOKEN });
    backing = await createBacking();
    env = {
      AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50', MEDIA_PROVIDER: 'replicate', REPLICATE_API_URL: fake.url,
      REPLICATE_API_TOKEN: TOKEN, OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    };
    server = await startServer(backing, env);
    if (E2E_MODE === 'services') worker = await startWorker(backing, env);
    user = await registerUser(server);
    await grantCredits(server, await loginAdmin(server), user.workspace.id, 1000);
    await takeEveryEvent(server, user);
    const res = await api(server).post('/characters').set(user.auth).send({ name: 'Noor', niche: 'fitness' });
    character = res.body.character.id;
  }, 90_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), worker?.stop()]);
    await fake?.close();
    await backing?.cleanup();
  });

  it('refuses every action on queued and generating items with 409, changing nothing', async () => {
    fake.setMode({ kind: 'hang' });
    const held: Item[] = [];
    for (let i = 0; i < 5; i++) held.push(await generate());
    // Four jobs run at once per consumer; the fifth waits in the queue.
    const statuses = await waitFor(async () => {
      const now = await Promise.all(held.map((h) => getItem(h.id)));
      const generating = now.filter((i) => i.status === 'generating' && i.job.progress >= 20);
      return generating.length === 4 && now.some((i) => i.status === 'queued') ? now : undefined;
    }, 30_000, 'four generating items and one queued');
    await expectRefusals(statuses.find((i) => i.status === 'queued')!, 'queued');
    await expectRefusals(statuses.find((i) => i.status === 'generating')!, 'generating');
    const patch = await api(server).patch(`/content/${held[0].id}`).set(user.auth).send({ caption: 'Still editable' });
    expect(patch.status).toBe(200);

    fake.setMode({ kind: 'ok' });
    for (const h of held) await waitForItem(h.id, ['ready'], 60_000);
  }, 120_000);

  it('refuses the moves not allowed from ready, approved, rejected and failed', async () => {
    await expectRefusals(await ready(), 'ready');
    const approved = await ready();
    expect((await act(approved, 'approve')).status).toBe(200);
    await expectRefusals(approved, 'approved');
    // A refused approval (already approved) records no second event.
    expect((await recordedEvents(backing, 'contentId', approved.id)).map((e) => e.type)).toEqual(['content.ready', 'content.approved']);
    const rejected = await ready();
    expect((await act(rejected, 'reject')).status).toBe(200);
    await expectRefusals(rejected, 'rejected');
    fake.setMode({ kind: 'fail', error: 'NSFW content detected' });
    const beforeOrder = await balance();
    const failed = await waitForItem((await generate()).id, ['failed']);
    fake.setMode({ kind: 'ok' });
    // The item shows failed as soon as its job fails; the refund comes with the job's own failure, a moment later.
    await waitFor(async () => ((await balance()) === beforeOrder ? true : undefined), 30_000, 'the failed order refunded');
    await expectRefusals(failed, 'failed');
  }, 90_000);

  it('approve, reject (with reason) and approve again: each change answered and streamed', async () => {
    const socket = await authedSocket(server.wsUrl, user.token);
    try {
      const item = await ready();
      const approved = await act(item, 'approve');
      expect(approved.status).toBe(200);
      expect(Object.keys(approved.body)).toEqual(['item']);
      expect(approved.body.item).toMatchObject({ id: item.id, status: 'approved', rejection_reason: null });
      const rejected = await act(item, 'reject', { reason: 'Too dark' });
      expect(rejected.body.item).toMatchObject({ status: 'rejected', rejection_reason: 'Too dark' });
      const again = await act(item, 'approve');
      expect(again.body.item).toMatchObject({ status: 'approved', rejection_reason: null });
      const back = await act(item, 'reject');
      expect(back.body.item).toMatchObject({ status: 'rejected', rejection_reason: null });
      await socket.waitFor((m) => m.type === 'content.updated' && m.item.id === item.id && m.item.status === 'rejected' && m.item.rejection_reason === null);
      const seen = socket.messages.filter((m) => m.type === 'content.updated' && m.item.id === item.id).map((m) => m.item.status as string);
      expect(seen).toEqual(['queued', 'generating', 'ready', 'approved', 'rejected', 'approved', 'rejected']);
      // Ready once, approved at each approval: the customer events recorded with the changes (docs/events.md).
      const events = await recordedEvents(backing, 'contentId', item.id);
      expect(events.map((e) => e.type)).toEqual(['content.ready', 'content.approved', 'content.approved']);
      expect(events[0]).toEqual({ type: 'content.ready', workspace_id: user.workspace.id, payload: { contentId: item.id, characterId: item.character_id } });
    } finally {
      socket.close();
    }
  });

  it('regenerate: 202 with a new job and a new charge; the media are replaced, not added to', async () => {
    const item = await ready({ type: 'carousel' });
    const oldUrls = item.media.map((m: Item) => m.url as string);
    expect((await act(item, 'reject')).status).toBe(200);
    const before = await balance();
    const res = await act(item, 'regenerate');
    expect(res.status).toBe(202);
    expect(res.body.item).toMatchObject({ id: item.id, status: 'queued', rejection_reason: null });
    expect(res.body.item).not.toHaveProperty('job');
    expect(res.body.job).toMatchObject({ job_type: 'generate_image', status: 'pending', content_id: item.id });
    expect(res.body.job.id).not.toBe(item.job.id);
    expect(await balance()).toBe(before - 9);
    const done = await waitForItem(item.id, ['ready']);
    expect(done.media).toHaveLength(3);
    expect(done.media.every((m: Item) => (m.url as string).includes(res.body.job.id) && m.review_status === 'pending')).toBe(true);
    // The old files go right after the new list commits (the item reads `ready` a moment before): once the job completes, they are gone.
    await waitFor(async () => (await api(server).get(`/jobs/${res.body.job.id}`).set(user.auth)).body.job?.status === 'completed', 30_000, 'the regenerate job');
    for (const url of oldUrls) expect((await fetch(`http://127.0.0.1:${server.port}${new URL(url).pathname}${new URL(url).search}`)).status).toBe(404);

    fake.setMode({ kind: 'fail', error: 'model overloaded' });
    const failing = await waitForItem((await generate()).id, ['failed']);
    fake.setMode({ kind: 'ok' });
    const retried = await act(failing, 'regenerate');
    expect(retried.status).toBe(202);
    expect((await waitForItem(failing.id, ['ready'])).media).toHaveLength(1);
  }, 60_000);

  it('media review: each medium approved or rejected; all approved approves the item', async () => {
    const item = await ready({ type: 'carousel' });
    const review = (i: number, decision: string) => api(server).post(`/characters/${character}/content/${item.id}/media/${i}/${decision}`).set(user.auth);
    expect((await review(0, 'approve')).body.item).toMatchObject({ status: 'ready' });
    const rejected = await review(2, 'reject');
    expect(rejected.status).toBe(200);
    expect(rejected.body.item.media.map((m: Item) => m.review_status)).toEqual(['approved', 'pending', 'rejected']);
    expect(rejected.body.item.status).toBe('ready');
    expect((await review(1, 'approve')).body.item.status).toBe('ready');
    const all = await review(2, 'approve');
    expect(all.body.item.status).toBe('approved');
    expect(all.body.item.media.map((m: Item) => m.review_status)).toEqual(['approved', 'approved', 'approved']);
    const afterwards = await review(1, 'reject');
    expect(afterwards.body.item).toMatchObject({ status: 'approved' });
    expect((await review(3, 'approve')).status).toBe(404);

    const rejectedItem = await ready();
    await act(rejectedItem, 'reject', { reason: 'crop' });
    const healed = await act(rejectedItem, 'media/0/approve');
    expect(healed.body.item).toMatchObject({ status: 'approved', rejection_reason: null });
  });

  it('under autopilot finished content goes straight to approved', async () => {
    const res = await api(server).post('/characters').set(user.auth).send({ name: 'Auto', niche: 'food', settings: { autopilot: true } });
    const auto = res.body.character.id as string;
    const socket = await authedSocket(server.wsUrl, user.token);
    try {
      const item = await generate({}, auto);
      const done = await waitForItem(item.id, ['approved', 'ready']);
      expect(done.status).toBe('approved');
      await socket.waitFor((m) => m.type === 'content.updated' && m.item.id === item.id && m.item.status === 'approved');
      const seen = socket.messages.filter((m) => m.type === 'content.updated' && m.item.id === item.id).map((m) => m.item.status as string);
      expect(seen).toEqual(['queued', 'generating', 'approved']);
      // Autopilot skips review: approved, never ready.
      expect((await recordedEvents(backing, 'contentId', item.id)).map((e) => e.type)).toEqual(['content.approved']);
    } finally {
      socket.close();
    }
  });

  it('published content refuses every moderation action, edits and variant changes; its variants stay readable', async () => {
    const item = await ready();
    const variants = await api(server).post(`/content/${item.id}/variants`).set(user.auth).send({ count: 2 });
    expect(variants.status).toBe(201);
    await publishThroughDb([item.id]);
    const published = await getItem(item.id);
    expect(published).toMatchObject({ status: 'published', variants_locked: true, published_at: expect.any(String) });
    await expectRefusals(published, 'published');

    const credits = await balance();
    const again = await api(server).post(`/content/${item.id}/variants`).set(user.auth).send({ count: 3 });
    expect([again.status, again.body.code]).toEqual([409, 'variants_locked']);
    const select = await api(server).put(`/content/${item.id}/variants/1/select`).set(user.auth);
    expect([select.status, select.body.code]).toEqual([409, 'variants_locked']);
    const patch = await api(server).patch(`/content/${item.id}`).set(user.auth).send({ caption: 'late edit' });
    expect([patch.status, patch.body.code, patch.body.details]).toEqual([409, 'invalid_state_transition', { from: 'published', action: 'edit' }]);
    const listed = await api(server).get(`/content/${item.id}/variants`).set(user.auth);
    expect(listed.body).toEqual(variants.body);
    expect(still(await getItem(item.id))).toEqual(still(published));
    expect(await balance()).toBe(credits);
  }, 90_000);
});
