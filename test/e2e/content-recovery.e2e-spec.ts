import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, grantCredits, loginAdmin, registerUser, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { authedSocket, type TestSocket } from '../helpers/socket.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.js';
import { pngBytes } from '../fakes/queue-e2e-jobs.js';
import { startFakeReplicate, type FakeReplicate } from '../fakes/replicate-server.js';

type Item = Record<string, any>;
const REPLICATE_TOKEN = 'r8_recovery_test_token';
const OPENAI_KEY = 'sk-recovery-test-key';

function providerEnv(replicate: FakeReplicate, openai?: FakeOpenAi): Record<string, string> {
  return {
    AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '1000', OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    MEDIA_PROVIDER: 'replicate', REPLICATE_API_URL: replicate.url, REPLICATE_API_TOKEN: REPLICATE_TOKEN,
    ...(openai ? { TEXT_PROVIDER: 'openai', OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: OPENAI_KEY } : {}),
  };
}

/** Shared reads against one server. */
function reads(server: () => TestServer, user: () => TestUser) {
  const get = async (path: string) => (await api(server()).get(path).set(user().auth)).body;
  return {
    balance: async () => (await get('/billing/credits')).balance as number,
    ledger: async () => (await get('/billing/ledger?page_size=100')).entries as Item[],
    item: async (id: string) => (await get(`/content/${id}`)).item as Item,
    job: async (id: string) => (await get(`/jobs/${id}`)).job as Item,
  };
}

/** A provider failure: the item fails, the job fails with a readable error, the credits come back. */
describe('content: provider failures', () => {
  let replicate: FakeReplicate;
  let openai: FakeOpenAi;
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let user: TestUser;
  let character: string;
  let socket: TestSocket;
  const r = reads(() => server, () => user);

  beforeAll(async () => {
    replicate = await startFakeReplicate({ token: REPLICATE_TOKEN });
    openai = await startFakeOpenAi({ apiKey: OPENAI_KEY });
    backing = await createBacking();
    server = await startServer(backing, providerEnv(replicate, openai));
    if (E2E_MODE === 'services') worker = await startWorker(backing, providerEnv(replicate, openai));
    user = await registerUser(server);
    await grantCredits(server, await loginAdmin(server), user.workspace.id, 200);
    character = (await api(server).post('/characters').set(user.auth).send({ name: 'Ola', niche: 'travel' })).body.character.id;
    socket = await authedSocket(server.wsUrl, user.token);
  }, 90_000);
  afterAll(async () => {
    socket?.close();
    await Promise.all([server?.stop(), worker?.stop()]);
    await Promise.all([replicate?.close(), openai?.close()]);
    await backing?.cleanup();
  });

  it('an image provider failure: item failed, job failed with a readable error, balance exactly as before', async () => {
    const before = await r.balance();
    replicate.setMode({ kind: 'fail', error: 'The model refused the prompt' });
    const res = await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: 'instagram', prompt: 'Beach', type: 'carousel' });
    expect(res.status).toBe(201);
    // The charge is not checked here: the job may fail and refund before a read (ledger below).
    const { item, job } = res.body;

    const failed = await socket.waitFor((m) => m.type === 'job.failed' && m.job.id === job.id, 30_000);
    expect(failed.job).toMatchObject({ status: 'failed', job_type: 'generate_image', error: { code: 'upstream_failed', message: expect.any(String) } });
    expect(failed.job.error.message.length).toBeGreaterThan(10);
    expect(failed.job.error.message).not.toMatch(/\bat \S+:\d+|stack|TypeError/);
    await socket.waitFor((m) => m.type === 'content.updated' && m.item.id === item.id && m.item.status === 'failed');
    expect(await r.item(item.id)).toMatchObject({ status: 'failed', media: [], job: { id: job.id, status: 'failed', error: failed.job.error } });
    expect(await r.job(job.id)).toEqual(failed.job);
    expect(await r.balance()).toBe(before);
    const entries = (await r.ledger()).filter((e) => e.ref_id === item.id).map((e) => [e.reason, e.amount]);
    expect(entries.sort()).toEqual([['content_image', -9], ['content_refund', 9]]);

    replicate.setMode({ kind: 'ok' });
    const again = await api(server).post(`/characters/${character}/content/${item.id}/regenerate`).set(user.auth);
    expect(again.status).toBe(202);
    await socket.waitFor((m) => m.type === 'job.completed' && m.job.id === again.body.job.id, 30_000);
    expect(await r.item(item.id)).toMatchObject({ status: 'ready', media: [{}, {}, {}] });
    expect(await r.balance()).toBe(before - 9);
  }, 60_000);

  it('a video provider failure refunds the video', async () => {
    const before = await r.balance();
    replicate.setMode({ kind: 'fail', error: 'GPU out of memory' });
    const res = await api(server).post('/content/video/generate').set(user.auth).send({ character_id: character, platform: 'tiktok', scene_description: 'Dance', duration_seconds: 12 });
    expect(res.status).toBe(202);
    await socket.waitFor((m) => m.type === 'job.failed' && m.job.id === res.body.job.id, 30_000);
    const status = await api(server).get(`/content/video/${res.body.item.id}/status`).set(user.auth);
    expect(status.body).toMatchObject({ status: 'failed', video: null, job: { status: 'failed', error: { code: 'upstream_failed' } } });
    expect(await r.balance()).toBe(before);
    const entries = (await r.ledger()).filter((e) => e.ref_id === res.body.item.id).map((e) => [e.reason, e.amount]);
    expect(entries.sort()).toEqual([['content_refund', 12], ['content_video', -12]]);
    replicate.setMode({ kind: 'ok' });
  }, 60_000);

  it('a week plan whose planning fails creates nothing and refunds the whole week', async () => {
    const before = await r.balance();
    openai.setMode({ kind: 'http_error', status: 400, times: 1000 });
    const res = await api(server).post('/content/generate-week').set(user.auth).send({ character_id: character, week: '2031-03-03' });
    expect(res.status).toBe(202);
    const failed = await socket.waitFor((m) => m.type === 'job.failed' && m.job.id === res.body.job.id, 60_000);
    expect(failed.job.error).toMatchObject({ code: 'upstream_failed', message: expect.any(String) });
    openai.setMode({ kind: 'ok' });
    expect(await r.balance()).toBe(before);
    const calendar = await api(server).get(`/content/calendar?character_id=${character}&from=2031-03-03&to=2031-03-09`).set(user.auth);
    expect(calendar.body.days.flatMap((d: Item) => d.items)).toEqual([]);
    const entries = (await r.ledger()).filter((e) => e.ref_id === res.body.job.id).map((e) => [e.reason, e.amount]);
    // Seven Instagram posts, two of them reels (videos): 7 × 1 + 5 images × 3 + 2 videos × 5 s.
    expect(entries.sort()).toEqual([['content_week_plan', -32], ['content_week_plan_refund', 32]]);
  }, 90_000);

  it('content deleted with its character while it is generated: the job fails and refunds', async () => {
    const doomed = (await api(server).post('/characters').set(user.auth).send({ name: 'Gone', niche: 'food' })).body.character.id as string;
    const before = await r.balance();
    replicate.setMode({ kind: 'hang' });
    const res = await api(server).post('/content/generate').set(user.auth).send({ character_id: doomed, platform: 'instagram', prompt: 'Soup' });
    expect(res.status).toBe(201);
    await waitFor(async () => (await r.job(res.body.job.id)).progress >= 20, 30_000, 'the job inside the provider call');
    expect((await api(server).delete(`/characters/${doomed}`).set(user.auth)).status).toBe(204);
    replicate.setMode({ kind: 'ok' });
    const failed = await socket.waitFor((m) => m.type === 'job.failed' && m.job.id === res.body.job.id, 30_000);
    expect(failed.job.error).toMatchObject({ code: 'not_found', message: expect.stringContaining('deleted') });
    expect(await r.balance()).toBe(before);
  }, 60_000);

  it('draws image-to-image from the character’s uploaded primary reference, text-to-image without one', async () => {
    const plain = await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: 'instagram', prompt: 'No face yet' });
    await socket.waitFor((m) => m.type === 'job.completed' && m.job.id === plain.body.job.id, 30_000);
    const created = () => [...replicate.predictions.values()].at(-1)!;
    expect(created().input.image).toBeUndefined();

    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pngBytes(5, 48, 48))], { type: 'image/png' }), 'face.png');
    const upload = await fetch(`${server.url}/characters/${character}/reference-images`, { method: 'POST', headers: user.auth, body: form });
    expect(upload.status).toBe(201);
    const res = await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: 'instagram', prompt: 'With face' });
    await socket.waitFor((m) => m.type === 'job.completed' && m.job.id === res.body.job.id, 30_000);
    expect(String(created().input.image)).toMatch(/^data:image\/(png|jpeg|webp);base64,/);
  }, 60_000);

  it('caption variants whose provider fails answer 502 and cost nothing', async () => {
    const item = (await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: 'x', prompt: 'Coffee', caption: 'Mine' })).body.item;
    await waitFor(async () => (await r.item(item.id)).status === 'ready', 30_000, 'item ready');
    const before = await r.balance();
    openai.setMode({ kind: 'http_error', status: 400, times: 1000 });
    const res = await api(server).post(`/content/${item.id}/variants`).set(user.auth).send({ count: 2 });
    openai.setMode({ kind: 'ok' });
    expect([res.status, res.body.code]).toEqual([502, 'upstream_failed']);
    expect(await r.balance()).toBe(before);
    expect((await api(server).get(`/content/${item.id}/variants`).set(user.auth)).body.variants).toEqual([]);
  }, 60_000);
});

/**
 * The process that runs jobs dies mid-run and a new one starts: every job completes exactly once,
 * one debit per item, no refund, and each item holds exactly its media. With PostgreSQL + Redis
 * the separate worker is killed; on the embedded defaults the API (which runs the jobs) is.
 */
describe('content: the job runner killed mid-run', () => {
  let replicate: FakeReplicate;
  let backing: Backing;
  let server: TestServer;
  let runner: RunningProcess | undefined;
  let user: TestUser;
  const services = E2E_MODE === 'services';
  const r = reads(() => server, () => user);

  beforeAll(async () => {
    replicate = await startFakeReplicate({ token: REPLICATE_TOKEN });
    backing = await createBacking();
    server = await startServer(backing, providerEnv(replicate));
    if (services) runner = await startWorker(backing, providerEnv(replicate));
    user = await registerUser(server);
    await grantCredits(server, await loginAdmin(server), user.workspace.id, 200);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), runner?.stop()]);
    await replicate?.close();
    await backing?.cleanup();
  });

  it('finishes every job exactly once after SIGKILL and restart', async () => {
    const character = (await api(server).post('/characters').set(user.auth).send({ name: 'Kim', niche: 'style' })).body.character.id as string;
    const socket = services ? await authedSocket(server.wsUrl, user.token) : undefined;
    replicate.setMode({ kind: 'hang' });
    const started: Array<{ item: Item; job: Item }> = [];
    for (const type of ['single', 'carousel', 'single', 'carousel', 'single', 'single']) {
      const res = await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: 'instagram', prompt: `Look ${type}`, type });
      expect(res.status).toBe(201);
      started.push(res.body);
    }
    await waitFor(async () => {
      const res = await api(server).get(`/content/queue?character_id=${character}&status=generating`).set(user.auth);
      return res.body.items?.filter((i: Item) => i.job.progress >= 20).length === 4;
    }, 30_000, 'four jobs inside the provider call');

    const creates = () => replicate.requestsTo('/predictions', 'POST').filter((q) => q.path.endsWith('/predictions')).length;
    const beforeKill = creates();
    if (services) {
      await runner!.stop('SIGKILL');
      replicate.setMode({ kind: 'ok' });
      runner = await startWorker(backing, providerEnv(replicate));
    } else {
      await server.stop('SIGKILL');
      replicate.setMode({ kind: 'ok' });
      server = await startServer(backing, providerEnv(replicate));
    }

    // Bull gives a dead worker's jobs to another once their locks expire (about 30 s).
    await waitFor(async () => {
      const res = await api(server).get(`/content/queue?character_id=${character}&status=ready`).set(user.auth);
      return res.body.total === started.length;
    }, 150_000, 'every item ready');
    const items = await Promise.all(started.map((s) => r.item(s.item.id)));

    // The four interrupted jobs ran again (with the two that had waited), yet each item was charged once.
    expect(creates() - beforeKill).toBeGreaterThanOrEqual(started.length);
    const entries = await r.ledger();
    expect(entries.filter((e) => e.reason === 'content_refund')).toEqual([]);
    for (const [n, s] of started.entries()) {
      const images = s.item.content_type === 'carousel' ? 3 : 1;
      const job = await r.job(s.job.id);
      expect(job).toMatchObject({ status: 'completed', progress: 100, error: null });
      expect(items[n].media).toHaveLength(images);
      expect(items[n].media.every((m: Item) => (m.url as string).includes(s.job.id))).toBe(true);
      const files = readdirSync(join(backing.env.DATA_DIR, 'uploads', 'content', s.item.id)).filter((f) => !f.endsWith('.tmp'));
      expect(files.sort()).toEqual(Array.from({ length: images }, (_, i) => `${s.job.id}-${i}.png`));
      expect(entries.filter((e) => e.ref_id === s.item.id).map((e) => [e.reason, e.amount])).toEqual([['content_image', -3 * images]]);
    }
    expect(await r.balance()).toBe(250 - 3 * 10);
    if (socket) {
      for (const s of started) {
        await socket.waitFor((m) => m.type === 'job.completed' && m.job.id === s.job.id, 10_000);
        expect(socket.messages.filter((m) => m.type === 'job.completed' && m.job.id === s.job.id)).toHaveLength(1);
      }
      socket.close();
    }
  }, 240_000);
});
