import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import type { Test } from 'supertest';
import { api, grantCredits, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';
import { authedSocket, type TestSocket } from '../helpers/socket.js';

type Body = Record<string, any>;

const LORA_KEYS = [
  'base_model', 'character_id', 'created_at', 'credits_charged', 'error', 'id', 'image_count', 'job_id', 'lora_rank', 'progress',
  'status', 'trained_at', 'training_steps', 'trigger_word', 'updated_at', 'weights_url',
].sort();
const ENV = { RUN_JOBS_IN_API: 'true', AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50', LORA_PROVIDER: 'local', LORA_CHECK_INTERVAL_MS: '50' };

/** A small, distinct PNG per index: training images must differ for the trainer to learn anything. */
function trainingPng(i: number, tint: [number, number, number] = [200, 80, 60]): Promise<Buffer> {
  const [r, g, b] = tint;
  return sharp({ create: { width: 40 + i, height: 48, channels: 3, background: { r: (r + i * 3) % 256, g: (g + i * 5) % 256, b: (b + i * 7) % 256 } } })
    .png()
    .toBuffer();
}

/**
 * LoRA training through HTTP with the offline trainer (contract §10): access, images, the checks of
 * a training in their order, a training from queued to ready with its progress on the socket, the
 * LoRA in every image after, and DELETE. The Replicate path is lora-replicate.e2e-spec.ts.
 */
describe('LoRA training (offline trainer)', () => {
  let backing: Backing;
  let server: TestServer;
  let admin: { Authorization: string };
  let pro: TestUser;
  let starter: TestUser;
  let intruder: TestUser;
  let agency: TestUser;
  let charId: string;
  const sockets: TestSocket[] = [];

  const createCharacter = async (user: TestUser, name = 'Zara Kade'): Promise<string> => {
    const res = await api(server).post('/characters').set(user.auth).send({ name, niche: 'fitness', appearance: { aesthetic: 'warm film look' } });
    expect(res.status).toBe(201);
    return res.body.character.id as string;
  };
  const uploadImages = (user: TestUser, id: string, files: Buffer[], part = 'images') => {
    const req = api(server).post(`/characters/${id}/lora/images`).set(user.auth);
    files.forEach((bytes, i) => void req.attach(part, bytes, { filename: `img${i}.png`, contentType: 'image/png' }));
    return req;
  };
  /** Up to 10 files go in one request; more in several. */
  const addImages = async (user: TestUser, id: string, count: number, from = 0): Promise<Body> => {
    let body: Body = {};
    for (let start = 0; start < count; start += 10) {
      const n = Math.min(10, count - start);
      const res = await uploadImages(user, id, await Promise.all(Array.from({ length: n }, (_, i) => trainingPng(from + start + i))));
      expect(res.status).toBe(201);
      body = res.body as Body;
    }
    return body;
  };
  const lora = async (user: TestUser, id: string) => (await api(server).get(`/characters/${id}/lora`).set(user.auth)).body.lora as Body;
  const character = async (user: TestUser, id: string) => (await api(server).get(`/characters/${id}`).set(user.auth)).body.character as Body;
  const balance = async (user: TestUser) => (await api(server).get('/billing/credits').set(user.auth)).body.balance as number;
  const ledger = async (user: TestUser) => (await api(server).get('/billing/ledger?page_size=100').set(user.auth)).body.entries as Body[];
  const train = (user: TestUser, id: string, body: Record<string, unknown> = { base_model: 'flux-dev' }) => api(server).post(`/characters/${id}/lora/train`).set(user.auth).send(body);
  const mediaBytes = async (url: string) => {
    const u = new URL(url);
    const res = await fetch(`http://127.0.0.1:${server.port}${u.pathname}${u.search}`);
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };
  const generated = async (user: TestUser, id: string, prompt: string) => {
    const res = await api(server).post('/content/generate').set(user.auth).send({ character_id: id, platform: 'instagram', type: 'single', prompt });
    expect(res.status).toBe(201);
    const jobId = res.body.job.id as string;
    const job = await waitFor(async () => {
      const j = (await api(server).get(`/jobs/${jobId}`).set(user.auth)).body.job as Body;
      return ['completed', 'failed'].includes(j?.status) ? j : undefined;
    }, 30_000, `image job ${jobId}`);
    expect(job.status).toBe('completed');
    const item = (await api(server).get(`/content/${res.body.item.id}`).set(user.auth)).body.item as Body;
    return { job, image: await mediaBytes(item.media[0].url as string) };
  };

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, ENV);
    admin = await loginAdmin(server);
    [pro, starter, intruder, agency] = await Promise.all([registerUser(server), registerUser(server), registerUser(server), registerUser(server)]);
    await setPlan(server, admin, pro.workspace.id, 'pro');
    await setPlan(server, admin, intruder.workspace.id, 'agency');
    await setPlan(server, admin, agency.workspace.id, 'agency');
    await grantCredits(server, admin, pro.workspace.id, 2000);
    charId = await createCharacter(pro);
  }, 90_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    await server?.stop();
    await backing?.cleanup();
  });

  const routes = (id: string, imageId = missingId('limg')): Array<[string, (u: TestUser) => Test]> => [
    ['GET lora', (u) => api(server).get(`/characters/${id}/lora`).set(u.auth)],
    ['GET lora/status', (u) => api(server).get(`/characters/${id}/lora/status`).set(u.auth)],
    ['POST lora/images', (u) => api(server).post(`/characters/${id}/lora/images`).set(u.auth).send({ from_reference_images: true })],
    ['GET lora/images', (u) => api(server).get(`/characters/${id}/lora/images`).set(u.auth)],
    ['DELETE lora/images/:id', (u) => api(server).delete(`/characters/${id}/lora/images/${imageId}`).set(u.auth)],
    ['POST lora/train', (u) => api(server).post(`/characters/${id}/lora/train`).set(u.auth).send({ base_model: 'flux-dev' })],
    ['DELETE lora', (u) => api(server).delete(`/characters/${id}/lora`).set(u.auth)],
  ];

  describe('access', () => {
    it('refuses the Starter plan on every route with 403 plan_required, before anything else is looked at', async () => {
      const own = await createCharacter(starter);
      for (const [name, call] of routes(own)) {
        const res = await call(starter);
        expect([name, res.status, res.body.code]).toEqual([name, 403, 'plan_required']);
      }
    });

    it('answers 404 for another workspace’s character on every route, and for ids of the wrong shape', async () => {
      for (const [name, call] of routes(charId)) {
        const res = await call(intruder);
        expect([name, res.status, res.body.code]).toEqual([name, 404, 'not_found']);
      }
      for (const [name, call] of routes(missingId('ref'))) {
        const res = await call(pro);
        expect([name, res.status]).toEqual([name, 404]);
      }
      expect((await api(server).get(`/characters/${charId}/lora/images`).set(pro.auth)).body.images).toEqual([]);
    });

    it('answers 404 for another workspace’s training image tried under the intruder’s own character, and for another character’s image in the same workspace, removing nothing', async () => {
      const victim = await createCharacter(pro, 'Victim');
      const added = await uploadImages(pro, victim, [await trainingPng(5)]);
      expect(added.status).toBe(201);
      const imageId = added.body.images[0].id as string;
      const own = await createCharacter(intruder, 'Intruder');
      const foreign = await api(server).delete(`/characters/${own}/lora/images/${imageId}`).set(intruder.auth);
      expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
      const sibling = await createCharacter(pro, 'Sibling');
      const crossed = await api(server).delete(`/characters/${sibling}/lora/images/${imageId}`).set(pro.auth);
      expect([crossed.status, crossed.body.code]).toEqual([404, 'not_found']);
      const left = (await api(server).get(`/characters/${victim}/lora/images`).set(pro.auth)).body;
      expect(left.images.map((i: Body) => i.id)).toEqual([imageId]);
      expect(await mediaBytes(left.images[0].url as string)).toEqual(await trainingPng(5));
    });

    it('refuses API keys (401 session_required): the LoRA routes are product routes', async () => {
      const key = await api(server).post('/api-keys').set(agency.auth).send({ name: 'agency', scopes: ['characters:read', 'characters:write'] });
      expect(key.status).toBe(201);
      const own = await createCharacter(agency);
      const res = await api(server).get(`/characters/${own}/lora`).set({ Authorization: `Bearer ${key.body.key}` });
      expect([res.status, res.body.code]).toEqual([401, 'session_required']);
    });

    it('answers the /influencers aliases alike', async () => {
      const res = await api(server).get(`/influencers/${charId}/lora/status`).set(pro.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'none', progress: 0, job: null });
    });
  });

  describe('before any training', () => {
    it('shows status none with every training field null, and the character agrees', async () => {
      const body = await lora(pro, charId);
      expect(Object.keys(body).sort()).toEqual(LORA_KEYS);
      expect(body).toEqual({
        id: null, character_id: charId, status: 'none', base_model: null, training_steps: null, lora_rank: null, trigger_word: null, image_count: 0,
        progress: null, job_id: null, weights_url: null, error: null, credits_charged: null, trained_at: null, created_at: null, updated_at: null,
      });
      expect(await character(pro, charId)).toMatchObject({ lora_training_status: 'none', face_consistency_tier: 'ip_adapter' });
    });
  });

  describe('training images', () => {
    it('takes one or many file parts named images, image or file, by their bytes, and lists them oldest first', async () => {
      const id = await createCharacter(pro, 'Imogen');
      const first = await uploadImages(pro, id, [await trainingPng(1), await trainingPng(2)], 'images');
      expect(first.status).toBe(201);
      expect(first.body.image_count).toBe(2);
      expect(first.body.images).toHaveLength(2);
      expect(first.body.images[0]).toEqual({ id: expect.stringMatching(/^limg_[0-9A-Z]{26}$/), url: expect.stringMatching(/\?expires=\d+&signature=/), width: 41, height: 48, created_at: expect.any(String) });
      expect((await uploadImages(pro, id, [await trainingPng(3)], 'image')).body.image_count).toBe(3);
      expect((await uploadImages(pro, id, [await trainingPng(4)], 'file')).body.image_count).toBe(4);
      const list = await api(server).get(`/characters/${id}/lora/images`).set(pro.auth);
      expect(list.body.image_count).toBe(4);
      expect(list.body.images.map((i: Body) => i.width)).toEqual([41, 42, 43, 44]);
      expect(await mediaBytes(list.body.images[0].url as string)).toEqual(await trainingPng(1));
      const unsigned = await fetch(`http://127.0.0.1:${server.port}${new URL(list.body.images[0].url as string).pathname}`);
      expect(unsigned.status).toBe(403);
    });

    it('refuses a file that is not an image by its bytes (415), one over 10 MiB (413), a wrong part name, 11 files at once and an empty request (400), adding nothing', async () => {
      const id = await createCharacter(pro, 'Refused');
      const text = await api(server).post(`/characters/${id}/lora/images`).set(pro.auth).attach('images', Buffer.from('GIF89a not really'), { filename: 'x.png', contentType: 'image/png' });
      expect([text.status, text.body.code]).toEqual([415, 'unsupported_media_type']);
      const big = Buffer.concat([await trainingPng(0), Buffer.alloc(10 * 1024 * 1024)]);
      const tooBig = await api(server).post(`/characters/${id}/lora/images`).set(pro.auth).attach('images', big, { filename: 'big.png', contentType: 'image/png' });
      expect([tooBig.status, tooBig.body.code]).toEqual([413, 'payload_too_large']);
      const wrongPart = await uploadImages(pro, id, [await trainingPng(1)], 'photo');
      expect([wrongPart.status, wrongPart.body.code]).toEqual([400, 'validation_failed']);
      const empty = await api(server).post(`/characters/${id}/lora/images`).set(pro.auth).send({});
      expect([empty.status, empty.body.code]).toEqual([400, 'validation_failed']);
      const eleven = await uploadImages(pro, id, await Promise.all(Array.from({ length: 11 }, (_, i) => trainingPng(i))));
      expect([eleven.status, eleven.body.code]).toEqual([400, 'validation_failed']);
      const notTrue = await api(server).post(`/characters/${id}/lora/images`).set(pro.auth).send({ from_reference_images: false });
      expect([notTrue.status, notTrue.body.code]).toEqual([400, 'validation_failed']);
      expect((await lora(pro, id)).image_count).toBe(0);
    });

    it('copies the character’s reference images on {from_reference_images: true}', async () => {
      const id = await createCharacter(pro, 'Copied');
      const none = await api(server).post(`/characters/${id}/lora/images`).set(pro.auth).send({ from_reference_images: true });
      expect([none.status, none.body.code]).toEqual([400, 'validation_failed']);
      const face = await trainingPng(9, [30, 160, 90]);
      const ref = await api(server).post(`/characters/${id}/reference-images`).set(pro.auth).attach('file', face, { filename: 'face.png', contentType: 'image/png' });
      expect(ref.status).toBe(201);
      const copied = await api(server).post(`/characters/${id}/lora/images`).set(pro.auth).send({ from_reference_images: true });
      expect(copied.status).toBe(201);
      expect(copied.body.image_count).toBe(1);
      expect(await mediaBytes(copied.body.images[0].url as string)).toEqual(face);
    });

    it('holds at most 30 in all: a request past it is 409 training_image_limit and adds nothing; DELETE removes one', async () => {
      const id = await createCharacter(pro, 'Thirty');
      await addImages(pro, id, 10);
      await addImages(pro, id, 10, 10);
      await addImages(pro, id, 8, 20);
      const over = await uploadImages(pro, id, await Promise.all([trainingPng(28), trainingPng(29), trainingPng(30)]));
      expect([over.status, over.body.code]).toEqual([409, 'training_image_limit']);
      expect(over.body.details).toEqual({ limit: 30, image_count: 28, adding: 3 });
      const list = (await api(server).get(`/characters/${id}/lora/images`).set(pro.auth)).body;
      expect(list.image_count).toBe(28);
      const gone = await api(server).delete(`/characters/${id}/lora/images/${list.images[0].id}`).set(pro.auth);
      expect(gone.status).toBe(204);
      const again = await api(server).delete(`/characters/${id}/lora/images/${list.images[0].id}`).set(pro.auth);
      expect(again.status).toBe(404);
      expect((await api(server).get(`/characters/${id}/lora/images`).set(pro.auth)).body.image_count).toBe(27);
      const gonePath = new URL(list.images[0].url as string);
      expect((await fetch(`http://127.0.0.1:${server.port}${gonePath.pathname}${gonePath.search}`)).status).toBe(404);
    });
  });

  describe('training checks, in the contract’s order', () => {
    it('refuses an unknown base model (400) before the image count, and out-of-range steps and rank', async () => {
      const id = await createCharacter(pro, 'Checks');
      for (const body of [{ base_model: 'sd15' }, {}, { base_model: 'flux-dev', training_steps: 999 }, { base_model: 'flux-dev', lora_rank: 64 }, { base_model: 'flux-dev', trigger_word: 'a b' }]) {
        const res = await train(pro, id, body);
        expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), 400, 'validation_failed']);
      }
      expect((await lora(pro, id)).status).toBe('none');
    });

    it('refuses fewer than 10 images with 409 insufficient_training_images, charging nothing', async () => {
      const id = await createCharacter(pro, 'Nine');
      await addImages(pro, id, 9);
      const before = await balance(pro);
      const res = await train(pro, id);
      expect([res.status, res.body.code]).toEqual([409, 'insufficient_training_images']);
      expect(res.body.details).toMatchObject({ image_count: 9 });
      expect(await balance(pro)).toBe(before);
    });

    it('refuses a workspace that cannot pay 500 credits (402) and writes nothing: no charge, no job, no LoRA', async () => {
      const poor = await registerUser(server);
      await setPlan(server, admin, poor.workspace.id, 'pro');
      const id = await createCharacter(poor, 'Poor');
      await addImages(poor, id, 10);
      const entries = (await ledger(poor)).length;
      const res = await train(poor, id);
      expect([res.status, res.body.code]).toEqual([402, 'insufficient_credits']);
      expect(res.body.details).toMatchObject({ required: 500, balance: 50, shortfall: 450 });
      expect(await balance(poor)).toBe(50);
      expect((await ledger(poor)).length).toBe(entries);
      expect(await lora(poor, id)).toMatchObject({ status: 'none', job_id: null });
      expect(await character(poor, id)).toMatchObject({ lora_training_status: 'none' });
    });
  });

  describe('a training on the offline trainer', () => {
    let jobId: string;
    let loraId: string;
    let before: { image: Buffer; job: Body };
    const prompt = 'Morning run on the beach';

    it('is charged when accepted, reports progress on the socket, and ends ready; the status route and the character agree throughout', async () => {
      await addImages(pro, charId, 12);
      before = await generated(pro, charId, prompt);
      expect(before.job.result.lora_id).toBeUndefined();
      const socket = await authedSocket(server.wsUrl, pro.token);
      sockets.push(socket);
      const credits = await balance(pro);

      const res = await train(pro, charId, { base_model: 'flux-dev', training_steps: 1200, lora_rank: 24 });
      expect(res.status).toBe(202);
      expect(Object.keys(res.body).sort()).toEqual(['job', 'lora']);
      expect(res.body.lora).toMatchObject({
        character_id: charId, status: 'queued', base_model: 'flux-dev', training_steps: 1200, lora_rank: 24, image_count: 12, progress: 0,
        credits_charged: 500, weights_url: null, error: null, trained_at: null, trigger_word: expect.stringMatching(/^ZARAKADE_[0-9A-Z]{4}$/),
      });
      expect(res.body.job).toMatchObject({ job_type: 'train_lora', status: 'pending', character_id: charId });
      jobId = res.body.job.id;
      loraId = res.body.lora.id;
      expect(loraId).toMatch(/^lora_[0-9A-Z]{26}$/);
      expect(res.body.lora.job_id).toBe(jobId);
      expect(await balance(pro)).toBe(credits - 500);
      expect((await ledger(pro))[0]).toMatchObject({ amount: -500, reason: 'lora_training', ref_type: 'lora_training', ref_id: jobId });

      // Sampled status, character, status: when both status reads agree, the character read between them must too.
      const seen = new Set<string>();
      await waitFor(async () => {
        const a = (await api(server).get(`/characters/${charId}/lora/status`).set(pro.auth)).body;
        const c = await character(pro, charId);
        const b = (await api(server).get(`/characters/${charId}/lora/status`).set(pro.auth)).body;
        if (a.status === b.status) {
          expect(c.lora_training_status).toBe(a.status);
          expect(c.face_consistency_tier).toBe(a.status === 'ready' ? 'lora' : 'ip_adapter');
        }
        seen.add(b.status);
        return b.status === 'ready' ? b : undefined;
      }, 60_000, 'the LoRA to be ready');
      expect(seen.has('ready')).toBe(true);

      const progress = await socket.waitFor((m) => m.type === 'job.completed' && m.job.id === jobId, 30_000);
      const steps = socket.messages.filter((m) => m.type === 'job.progress' && m.job.id === jobId).map((m) => m.job.progress as number);
      expect(steps.length).toBeGreaterThanOrEqual(2);
      expect(steps).toEqual([...steps].sort((x, y) => x - y));
      expect(steps.some((p) => p > 0 && p < 100)).toBe(true);
      expect(progress.job.result).toMatchObject({ lora_id: loraId, status: 'ready' });

      const done = await lora(pro, charId);
      expect(done).toMatchObject({ id: loraId, status: 'ready', progress: 100, error: null, credits_charged: 500, weights_url: null, trained_at: expect.any(String) });
      expect(await character(pro, charId)).toMatchObject({ lora_training_status: 'ready', face_consistency_tier: 'lora' });
    });

    it('answers the cheap status read with the completed job', async () => {
      const status = await api(server).get(`/characters/${charId}/lora/status`).set(pro.auth);
      expect(status.body).toMatchObject({ status: 'ready', progress: 100, job: { id: jobId, status: 'completed', job_type: 'train_lora' } });
    });

    it('draws every image of the character with the LoRA after: the job result names it and the pixels differ measurably', async () => {
      const after = await generated(pro, charId, prompt);
      expect(after.job.result.lora_id).toBe(loraId);
      const [a, b] = await Promise.all([before.image, after.image].map((png) => sharp(png).removeAlpha().raw().toBuffer()));
      expect(a.length).toBe(b.length);
      let diff = 0;
      for (let i = 0; i < a.length; i++) diff += Math.abs(a[i] - b[i]);
      // Mean absolute difference per channel: 0 would mean the LoRA changed nothing; JPEG-level noise is below 2.
      expect(diff / a.length).toBeGreaterThan(5);
    });

    it('DELETE removes the LoRA, its images and their files: status none, the character back to ip_adapter, images drawn without it', async () => {
      const images = (await api(server).get(`/characters/${charId}/lora/images`).set(pro.auth)).body.images as Body[];
      const credits = await balance(pro);
      const res = await api(server).delete(`/characters/${charId}/lora`).set(pro.auth);
      expect(res.status).toBe(204);
      expect(await balance(pro)).toBe(credits);
      expect(await lora(pro, charId)).toMatchObject({ id: null, status: 'none', image_count: 0, job_id: null });
      expect(await character(pro, charId)).toMatchObject({ lora_training_status: 'none', face_consistency_tier: 'ip_adapter' });
      const file = new URL(images[0].url as string);
      expect((await fetch(`http://127.0.0.1:${server.port}${file.pathname}${file.search}`)).status).toBe(404);
      const after = await generated(pro, charId, prompt);
      expect(after.job.result.lora_id).toBeUndefined();
      expect(after.image).toEqual(before.image);
      expect((await api(server).delete(`/characters/${charId}/lora`).set(pro.auth)).status).toBe(204);
    });
  });
});
