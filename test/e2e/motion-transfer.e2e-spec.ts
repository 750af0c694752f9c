import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import sharp from 'sharp';
import { api, grantCredits, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';
import { movBytes, mp4Bytes, startVideoFileServer, webmBytes, type FakeVideoFileServer } from '../fakes/video-file-server.js';

const MT_KEYS = [
  'aspect_ratio', 'character_id', 'created_at', 'credits_charged', 'duration_seconds', 'error', 'id', 'job_id', 'reference_video_url',
  'source', 'status', 'thumbnail_url', 'updated_at', 'video_url',
].sort();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MiB = 1024 * 1024;

async function makeFace(): Promise<Buffer> {
  const width = 48;
  const height = 64;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 7919 + 31) % 256;
  return sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

describe('motion transfer', () => {
  let backing: Backing;
  let server: TestServer;
  let files: FakeVideoFileServer;
  let admin: { Authorization: string };
  let owner: TestUser;
  let intruder: TestUser;
  let charId: string;
  let face: Buffer;

  const createCharacter = async (user: TestUser, name = 'Mover') => {
    const res = await api(server).post('/characters').set(user.auth).send({ name, niche: 'dance' });
    expect(res.status).toBe(201);
    return res.body.character.id as string;
  };
  const uploadFace = async (user: TestUser, id: string) => {
    const res = await api(server).post(`/characters/${id}/reference-images`).set(user.auth).attach('file', face, { filename: 'face.png', contentType: 'image/png' });
    expect(res.status).toBe(201);
  };
  const start = (user: TestUser, id: string, body: Record<string, unknown>) => api(server).post(`/characters/${id}/motion-transfer`).set(user.auth).send(body);
  const upload = (user: TestUser, id: string, bytes: Buffer, fields: Record<string, string> = {}, part = 'video') => {
    const req = api(server).post(`/characters/${id}/motion-transfer`).set(user.auth);
    for (const [k, v] of Object.entries(fields)) void req.field(k, v);
    return req.attach(part, bytes, { filename: 'clip.bin', contentType: 'video/mp4' });
  };
  const status = (user: TestUser, id: string, ref: string) => api(server).get(`/characters/${id}/motion-transfer/${ref}`).set(user.auth);
  const balance = async (user: TestUser) => (await api(server).get('/billing/credits').set(user.auth)).body.balance as number;
  const ledger = async (user: TestUser) => (await api(server).get('/billing/ledger?page_size=100').set(user.auth)).body.entries as Array<Record<string, unknown>>;
  const list = (user: TestUser, id: string, query = '') => api(server).get(`/characters/${id}/motion-transfers${query}`).set(user.auth);
  /** Our media URLs name the configured public host; fetch them from the test server instead. */
  // Media URLs are signed (path and query); the worker may sign with another PUBLIC_URL, so ask this server.
  const fetchMedia = (url: string) => fetch(new URL(`${new URL(url).pathname}${new URL(url).search}`, server.url));
  const finished = (user: TestUser, id: string, mtId: string) =>
    waitFor(async () => {
      const res = await status(user, id, mtId);
      // The transfer and its job end together: once the transfer reads finished, so does its job.
      return ['completed', 'failed'].includes(res.body.motion_transfer?.status) ? res.body : null;
    }, 30_000, `motion transfer ${mtId}`);

  beforeAll(async () => {
    face = await makeFace();
    files = await startVideoFileServer();
    backing = await createBacking();
    server = await startServer(backing, { RUN_JOBS_IN_API: 'true', OUTBOUND_ALLOW_HOSTS: '127.0.0.1', RATE_LIMIT_MULTIPLIER: '10' });
    admin = await loginAdmin(server);
    owner = await registerUser(server);
    intruder = await registerUser(server);
    await setPlan(server, admin, owner.workspace.id, 'agency');
    await setPlan(server, admin, intruder.workspace.id, 'agency');
    await grantCredits(server, admin, owner.workspace.id, 1000);
    charId = await createCharacter(owner);
    await uploadFace(owner, charId);
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
    await files?.close();
  });

  describe('from a URL (JSON)', () => {
    it('charges when accepted, downloads in the job and completes; the status route takes the mt or the job id', async () => {
      const before = await balance(owner);
      const res = await start(owner, charId, { reference_video_url: files.url('/clip.mp4'), duration_seconds: 12, aspect_ratio: '1:1' });
      expect(res.status).toBe(202);
      expect(Object.keys(res.body).sort()).toEqual(['job', 'motion_transfer', 'pricing']);
      expect(res.body.pricing).toEqual({ credits_per_five_seconds: 10, estimated_credits: 30 });
      const mt = res.body.motion_transfer;
      expect(Object.keys(mt).sort()).toEqual(MT_KEYS);
      expect(mt).toMatchObject({
        character_id: charId, status: 'queued', source: 'url', reference_video_url: files.url('/clip.mp4'), duration_seconds: 12,
        aspect_ratio: '1:1', video_url: null, thumbnail_url: null, credits_charged: 30, error: null, job_id: res.body.job.id,
      });
      expect(mt.id).toMatch(/^mt_[0-9A-Z]{26}$/);
      expect(mt.created_at).toMatch(ISO);
      expect(res.body.job).toMatchObject({ job_type: 'motion_transfer', status: 'pending', progress: 0, character_id: charId });
      expect(await balance(owner)).toBe(before - 30);
      expect((await ledger(owner))[0]).toMatchObject({ amount: -30, reason: 'motion_transfer', ref_type: 'motion_transfer', ref_id: mt.id });

      const done = await finished(owner, charId, mt.id);
      expect(done.job).toMatchObject({ id: res.body.job.id, status: 'completed', progress: 100, error: null });
      expect(done.motion_transfer).toMatchObject({ id: mt.id, status: 'completed', error: null, credits_charged: 30 });
      expect(done.motion_transfer.video_url).toMatch(new RegExp(`/api/v1/media/motion/${mt.id}/${res.body.job.id}-out\\.[a-z0-9]+\\?expires=\\d+&signature=[\\w-]+$`));
      // What it made, as signed URLs: the same files the motion transfer shows.
      expect(done.job.result).toEqual({
        motion_transfer_id: mt.id, duration_seconds: expect.any(Number),
        outputs: [{ kind: 'video', url: expect.any(String) }, ...(done.motion_transfer.thumbnail_url ? [{ kind: 'thumbnail', url: expect.any(String) }] : [])],
      });
      expect(new URL(done.job.result.outputs[0].url).pathname).toBe(new URL(done.motion_transfer.video_url).pathname);
      const media = await fetchMedia(done.motion_transfer.video_url);
      expect(media.status).toBe(200);
      expect((await media.arrayBuffer()).byteLength).toBeGreaterThan(0);
      if (done.motion_transfer.thumbnail_url) expect((await fetchMedia(done.motion_transfer.thumbnail_url)).status).toBe(200);
      expect(files.requests.filter((p) => p === '/clip.mp4')).toHaveLength(1);

      const byJob = await status(owner, charId, res.body.job.id);
      expect(byJob.status).toBe(200);
      expect(byJob.body).toEqual(done);
      expect(await balance(owner)).toBe(before - 30);
    });

    it('defaults to 10 seconds and 9:16, and accepts WebM and MOV by their bytes', async () => {
      const webm = await start(owner, charId, { reference_video_url: files.url('/clip.webm') });
      expect(webm.status).toBe(202);
      expect(webm.body.motion_transfer).toMatchObject({ duration_seconds: 10, aspect_ratio: '9:16', credits_charged: 20 });
      expect(webm.body.pricing.estimated_credits).toBe(20);
      const mov = await start(owner, charId, { reference_video_url: files.url('/clip.mov'), duration_seconds: 5 });
      expect(mov.body.motion_transfer.credits_charged).toBe(10);
      expect((await finished(owner, charId, webm.body.motion_transfer.id)).motion_transfer.status).toBe('completed');
      expect((await finished(owner, charId, mov.body.motion_transfer.id)).motion_transfer.status).toBe('completed');
    });

    it('lists the character’s transfers newest first with paging, on both paths', async () => {
      const all = await list(owner, charId);
      expect(all.status).toBe(200);
      expect(Object.keys(all.body).sort()).toEqual(['motion_transfers', 'page', 'page_size', 'total']);
      expect(all.body).toMatchObject({ page: 1, page_size: 20 });
      expect(all.body.total).toBeGreaterThanOrEqual(3);
      const created = all.body.motion_transfers.map((m: { created_at: string }) => m.created_at);
      expect(created).toEqual([...created].sort().reverse());
      const paged = await list(owner, charId, '?page=2&page_size=1');
      expect(paged.body.motion_transfers).toHaveLength(1);
      expect(paged.body.motion_transfers[0].id).toBe(all.body.motion_transfers[1].id);
      const alias = await api(server).get(`/influencers/${charId}/motion-transfers`).set(owner.auth);
      expect(alias.body).toEqual(all.body);
      expect((await list(owner, charId, '?page_size=101')).status).toBe(400);
      const other = await createCharacter(owner, 'Empty');
      expect((await list(owner, other)).body).toEqual({ motion_transfers: [], page: 1, page_size: 20, total: 0 });
    });
  });

  describe('from an upload (multipart)', () => {
    it('stores the uploaded video, charges by duration and completes', async () => {
      const before = await balance(owner);
      const res = await upload(owner, charId, webmBytes(64 * 1024), { duration_seconds: '6', aspect_ratio: '16:9' });
      expect(res.status).toBe(202);
      const mt = res.body.motion_transfer;
      expect(mt).toMatchObject({ source: 'upload', duration_seconds: 6, aspect_ratio: '16:9', credits_charged: 20, status: 'queued' });
      expect(mt.reference_video_url).toMatch(new RegExp(`/api/v1/media/motion/${mt.id}/source\\.webm\\?expires=\\d+&signature=[\\w-]+$`));
      expect(res.body.pricing).toEqual({ credits_per_five_seconds: 10, estimated_credits: 20 });
      const stored = await fetchMedia(mt.reference_video_url);
      expect(stored.status).toBe(200);
      expect(stored.headers.get('content-type')).toMatch(/^video\/webm/);
      expect(await balance(owner)).toBe(before - 20);
      const done = await finished(owner, charId, res.body.job.id);
      expect(done.motion_transfer).toMatchObject({ id: mt.id, status: 'completed' });
      expect(done.motion_transfer.video_url).toMatch(/-out\.[a-z0-9]+\?expires=\d+&signature=[\w-]+$/);
    });

    it('accepts MP4 and MOV uploads by their bytes whatever the declared type', async () => {
      expect((await upload(owner, charId, mp4Bytes())).status).toBe(202);
      expect((await upload(owner, charId, movBytes(), { duration_seconds: '5' })).body.motion_transfer.credits_charged).toBe(10);
    });

    it('refuses bytes that are not MP4, MOV or WebM with 415, creating and charging nothing', async () => {
      const before = await balance(owner);
      const total = (await list(owner, charId)).body.total;
      for (const bytes of [face, Buffer.from('definitely not a video, just text'), Buffer.alloc(0)]) {
        const res = await upload(owner, charId, bytes);
        expect(res.status).toBe(415);
        expect(res.body.code).toBe('unsupported_media_type');
      }
      expect(await balance(owner)).toBe(before);
      expect((await list(owner, charId)).body.total).toBe(total);
    });

    it('refuses a video over 100 MiB with 413, creating and charging nothing', async () => {
      const before = await balance(owner);
      const total = (await list(owner, charId)).body.total;
      const res = await postStreamedVideo(`${server.url}/characters/${charId}/motion-transfer`, owner.auth, 100 * MiB + 1);
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('payload_too_large');
      expect(await balance(owner)).toBe(before);
      expect((await list(owner, charId)).body.total).toBe(total);
    });

    it('refuses a file part with another name, two sources at once, or neither', async () => {
      const wrongPart = await upload(owner, charId, mp4Bytes(), {}, 'file');
      expect(wrongPart.status).toBe(400);
      expect(wrongPart.body.details).toEqual([{ field: 'video', message: expect.any(String) }]);
      const both = await upload(owner, charId, mp4Bytes(), { reference_video_url: files.url('/clip.mp4') });
      expect(both.status).toBe(400);
      const neither = await start(owner, charId, {});
      expect(neither.status).toBe(400);
      expect(neither.body.details.map((d: { field: string }) => d.field)).toEqual(['reference_video_url']);
    });
  });

  describe('validation, credits, state and tenancy', () => {
    it.each([
      ['a non-http scheme', { reference_video_url: 'ftp://127.0.0.1/clip.mp4' }, 'reference_video_url'],
      ['a file URL', { reference_video_url: 'file:///etc/passwd' }, 'reference_video_url'],
      ['a URL with credentials', { reference_video_url: 'https://me:pw@cdn.example.com/a.mp4' }, 'reference_video_url'],
      ['an unknown field', { reference_video_url: 'https://cdn.example.com/a.mp4', style: 'anime' }, 'style'],
      ['a duration under 5', { reference_video_url: 'https://cdn.example.com/a.mp4', duration_seconds: 4 }, 'duration_seconds'],
      ['a duration over 60', { reference_video_url: 'https://cdn.example.com/a.mp4', duration_seconds: 61 }, 'duration_seconds'],
      ['a fractional duration', { reference_video_url: 'https://cdn.example.com/a.mp4', duration_seconds: 7.5 }, 'duration_seconds'],
      ['an unknown aspect ratio', { reference_video_url: 'https://cdn.example.com/a.mp4', aspect_ratio: '4:3' }, 'aspect_ratio'],
    ])('refuses %s with 400 before anything is charged', async (_what, body, field) => {
      const before = await balance(owner);
      const res = await start(owner, charId, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await balance(owner)).toBe(before);
    });

    it('answers 402 when the balance cannot cover it, with nothing created and the balance unchanged', async () => {
      const poor = await registerUser(server);
      const id = await createCharacter(poor);
      await uploadFace(poor, id);
      const entries = (await ledger(poor)).length;
      const res = await start(poor, id, { reference_video_url: files.url('/clip.mp4'), duration_seconds: 60 });
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({ code: 'insufficient_credits', details: { required: 120, balance: 50 } });
      const up = await upload(poor, id, mp4Bytes(), { duration_seconds: '60' });
      expect(up.status).toBe(402);
      expect(await balance(poor)).toBe(50);
      expect((await ledger(poor)).length).toBe(entries);
      expect((await list(poor, id)).body.total).toBe(0);
      // 50 credits pay for up to 25 seconds.
      expect((await start(poor, id, { reference_video_url: files.url('/clip.mp4'), duration_seconds: 25 })).status).toBe(202);
      expect(await balance(poor)).toBe(0);
    });

    it('answers 409 for a character without an uploaded primary reference image', async () => {
      const id = await createCharacter(owner, 'Faceless');
      const before = await balance(owner);
      const res = await start(owner, id, { reference_video_url: files.url('/clip.mp4') });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invalid_state_transition');
      expect(res.body.message).toMatch(/primary reference image/);
      expect(await balance(owner)).toBe(before);
    });

    it('answers 404 for another workspace’s character and transfer, and for malformed or unknown ids', async () => {
      const mine = (await list(owner, charId)).body.motion_transfers[0];
      expect((await start(intruder, charId, { reference_video_url: files.url('/clip.mp4') })).status).toBe(404);
      expect((await upload(intruder, charId, mp4Bytes())).status).toBe(404);
      expect((await list(intruder, charId)).status).toBe(404);
      for (const ref of [mine.id, mine.job_id]) {
        const res = await status(intruder, charId, ref);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
      const other = await createCharacter(owner, 'Other');
      expect((await status(owner, other, mine.id)).status).toBe(404);
      for (const ref of [missingId('mt'), missingId('job'), 'mt_123', 'nonsense', charId, mine.id.toLowerCase()]) {
        expect((await status(owner, charId, ref)).status).toBe(404);
      }
      for (const id of ['char_123', 'nonsense', missingId('char'), missingId('mt')]) {
        expect((await start(owner, id, { reference_video_url: files.url('/clip.mp4') })).status).toBe(404);
        expect((await status(owner, id, mine.id)).status).toBe(404);
        expect((await list(owner, id)).status).toBe(404);
      }
      expect((await api(server).get(`/characters/${charId}/motion-transfers`)).status).toBe(401);
    });
  });

  describe('failures in the job', () => {
    it.each([
      ['a loopback name that is not allow-listed', () => `http://localhost:${files.port}/clip.mp4`, /loopback/],
      ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', /link-local/],
    ])('a URL to %s fails the job readably and refunds exactly', async (_what, url, reason) => {
      const before = await balance(owner);
      const seen = files.requests.length;
      const res = await start(owner, charId, { reference_video_url: url(), duration_seconds: 11 });
      expect(res.status).toBe(202);
      // No balance check here: in process the job can fail and refund before the next request; the ledger below shows both moves.
      const done = await finished(owner, charId, res.body.motion_transfer.id);
      expect(done.job).toMatchObject({ status: 'failed', error: { code: 'validation_failed' } });
      expect(done.motion_transfer).toMatchObject({ status: 'failed', video_url: null, error: done.job.error });
      expect(done.motion_transfer.error.message).toMatch(/^The reference video could not be downloaded: /);
      expect(done.motion_transfer.error.message).toMatch(reason);
      expect(await balance(owner)).toBe(before);
      const entries = (await ledger(owner)).filter((e) => e.ref_id === res.body.motion_transfer.id);
      expect(entries.map((e) => [e.amount, e.reason])).toEqual([[30, 'motion_transfer_refund'], [-30, 'motion_transfer']]);
      expect(files.requests.length).toBe(seen);
    });

    it('a URL that serves something other than a video fails as 415 and refunds', async () => {
      const before = await balance(owner);
      const res = await start(owner, charId, { reference_video_url: files.url('/page.html') });
      const done = await finished(owner, charId, res.body.job.id);
      expect(done.motion_transfer).toMatchObject({ status: 'failed', error: { code: 'unsupported_media_type' } });
      expect(done.motion_transfer.error.message).toMatch(/MP4, MOV or WebM/);
      expect(await balance(owner)).toBe(before);
    });

    it('a URL that answers 404 fails readably and refunds', async () => {
      const before = await balance(owner);
      const res = await start(owner, charId, { reference_video_url: files.url('/gone.mp4') });
      const done = await finished(owner, charId, res.body.job.id);
      expect(done.motion_transfer).toMatchObject({ status: 'failed', error: { code: 'upstream_failed' } });
      expect(done.motion_transfer.error.message).toMatch(/404/);
      expect(await balance(owner)).toBe(before);
    });
  });
});

describe('motion transfer on a server without an outbound allow-list', () => {
  let backing: Backing;
  let server: TestServer;
  let files: FakeVideoFileServer;

  beforeAll(async () => {
    files = await startVideoFileServer();
    backing = await createBacking();
    server = await startServer(backing, { RUN_JOBS_IN_API: 'true' });
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
    await files?.close();
  });

  it('refuses to download from a private address: the job fails readably and the credits come back exactly', async () => {
    const user = await registerUser(server);
    const created = await api(server).post('/characters').set(user.auth).send({ name: 'Mover', niche: 'dance' });
    const id = created.body.character.id as string;
    const face = await makeFace();
    expect((await api(server).post(`/characters/${id}/reference-images`).set(user.auth).attach('file', face, { filename: 'f.png', contentType: 'image/png' })).status).toBe(201);

    const res = await api(server).post(`/characters/${id}/motion-transfer`).set(user.auth).send({ reference_video_url: files.url('/clip.mp4'), duration_seconds: 25 });
    expect(res.status).toBe(202);
    // No balance check here: in process the job can fail and refund before the next request; the ledger below shows both moves.
    const done = await waitFor(async () => {
      const r = await api(server).get(`/characters/${id}/motion-transfer/${res.body.job.id}`).set(user.auth);
      return r.body.job?.status === 'failed' && r.body.motion_transfer?.status === 'failed' ? r.body : null;
    }, 30_000, 'the motion transfer to fail');
    expect(done.motion_transfer.error).toEqual(done.job.error);
    expect(done.motion_transfer.error).toEqual({
      code: 'validation_failed',
      message: expect.stringMatching(/^The reference video could not be downloaded: 127\.0\.0\.1 points to a loopback address/),
    });
    expect((await api(server).get('/billing/credits').set(user.auth)).body.balance).toBe(50);
    const entries = (await api(server).get('/billing/ledger').set(user.auth)).body.entries as Array<Record<string, unknown>>;
    expect(entries.slice(0, 2).map((e) => [e.amount, e.reason, e.ref_id, e.balance_after])).toEqual([
      [50, 'motion_transfer_refund', res.body.motion_transfer.id, 50],
      [-50, 'motion_transfer', res.body.motion_transfer.id, 0],
    ]);
    expect(files.requests).toEqual([]);
  });
});

/**
 * A multipart upload of `size` bytes of "video" streamed from a small reused buffer, so the test
 * never holds 100 MiB. The server may answer before the body is sent; the answer is what counts.
 */
function postStreamedVideo(url: string, auth: { Authorization: string }, size: number): Promise<{ status: number; body: any }> {
  const boundary = `e2e${Date.now().toString(36)}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="video"; filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(MiB, 0x2a);
  mp4Bytes(64).copy(chunk);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(url, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(head.length + size + tail.length) },
    });
    req.on('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') }));
      res.on('error', reject);
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const pump = async () => {
      req.write(head);
      for (let sent = 0; sent < size && !answered && !req.destroyed; ) {
        const piece = size - sent >= chunk.length ? chunk : chunk.subarray(0, size - sent);
        sent += piece.length;
        if (!req.write(piece)) await drainedOrClosed(req);
      }
      if (!answered && !req.destroyed) req.end(tail);
    };
    pump().catch(() => undefined);
  });
}

/** Resolves when the request can take more body, or when it is closed (the server answered early). */
function drainedOrClosed(req: http.ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done);
      req.off('close', done);
      resolve();
    };
    req.on('drain', done);
    req.on('close', done);
  });
}
