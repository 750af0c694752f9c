import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import ffprobe from '@ffprobe-installer/ffprobe';
import sharp from 'sharp';
import type { Test } from 'supertest';
import { finishedJob, mediaBytes } from '../helpers/media.js';
import { api, grantCredits, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';
import { startFakeDid, type FakeDid } from '../fakes/did-server.js';
import { closePlatformFakes, platformEnv, type PlatformFakes } from '../fakes/platforms/index.js';
import { startTikTokFake } from '../fakes/platforms/tiktok.js';
import { startYouTubeFake } from '../fakes/platforms/youtube.js';

type Body = Record<string, any>;
const ENV = {
  RUN_JOBS_IN_API: 'true', AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50',
  // Pinned: the MP4 and lip-sync checks below are the offline adapters'; the D-ID block overrides the renderer.
  VOICE_PROVIDER: 'local', TALKING_HEAD_PROVIDER: 'local',
};
const APP_URL = 'http://app.e2e.test';
const FPS = 25;
const SAMPLE_RATE = 48_000;

/** A face-like portrait: skin oval, eyes, nose and closed lips on a plain background. */
function facePng(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="600">
    <rect width="480" height="600" fill="#5b7fa6"/>
    <ellipse cx="240" cy="290" rx="150" ry="200" fill="#e2b48c"/>
    <ellipse cx="185" cy="240" rx="22" ry="12" fill="#fff"/><circle cx="185" cy="240" r="9" fill="#3b2a1a"/>
    <ellipse cx="295" cy="240" rx="22" ry="12" fill="#fff"/><circle cx="295" cy="240" r="9" fill="#3b2a1a"/>
    <path d="M240 260 L225 320 L255 320 Z" fill="#c99872"/>
    <rect x="205" y="365" width="70" height="8" rx="4" fill="#a0524d"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The major release of the system's ffmpeg or ffprobe on PATH; 0 when there is none or it is a git snapshot. */
function systemRelease(tool: string): number {
  try {
    const banner = execFileSync(tool, ['-version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return Number(/^\S+ version n?(\d+)\.\d+/.exec(banner)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function inTempFile<T>(bytes: Buffer, use: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'talking-head-e2e-'));
  try {
    const file = join(dir, 'clip.mp4');
    writeFileSync(file, bytes);
    return use(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Streams as the bundled ffprobe reads them. */
function probe(file: string): Array<{ codec_type: string; codec_name: string; duration: string; width?: number; height?: number }> {
  const out = execFileSync(ffprobe.path, ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name,duration,width,height', '-of', 'json', file]);
  return JSON.parse(out.toString()).streams;
}

/** The file's sound decoded by the bundled ffmpeg: mono 16-bit PCM at 48 kHz. */
function decodeAudio(file: string): Int16Array {
  const out = execFileSync(ffmpeg.path, ['-v', 'error', '-nostdin', '-i', file, '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 's16le', '-'], { maxBuffer: 256 * 1024 * 1024 });
  return new Int16Array(out.buffer, out.byteOffset, out.length / 2);
}

/** One decoded video frame at `seconds`, as 8-bit grey pixels (accurate seek: -ss after -i). */
function greyFrame(file: string, seconds: number): Buffer {
  return execFileSync(ffmpeg.path, ['-v', 'error', '-nostdin', '-i', file, '-ss', seconds.toFixed(3), '-frames:v', '1', '-pix_fmt', 'gray', '-f', 'rawvideo', '-'], { maxBuffer: 64 * 1024 * 1024 });
}

/** The quietest and loudest 40 ms windows (one video frame each at 25 fps), by RMS, over the frames the video has. */
function quietestAndLoudest(pcm: Int16Array, frames: number): { quiet: number; loud: number; quietRms: number; loudRms: number } {
  const n = SAMPLE_RATE / FPS;
  let quiet = 0;
  let loud = 0;
  let quietRms = Infinity;
  let loudRms = -1;
  for (let f = 0; f < frames && (f + 1) * n <= pcm.length; f++) {
    let sum = 0;
    for (let i = f * n; i < (f + 1) * n; i++) sum += pcm[i] * pcm[i];
    const rms = Math.sqrt(sum / n) / 32768;
    if (rms < quietRms) [quiet, quietRms] = [f, rms];
    if (rms > loudRms) [loud, loudRms] = [f, rms];
  }
  return { quiet, loud, quietRms, loudRms };
}

/** Pixels that moved by more than 40 grey levels inside a box given as fractions of the frame. */
function changedPixels(a: Buffer, b: Buffer, width: number, height: number, box: { x0: number; x1: number; y0: number; y1: number }): number {
  let changed = 0;
  for (let y = Math.floor(box.y0 * height); y < Math.floor(box.y1 * height); y++) {
    for (let x = Math.floor(box.x0 * width); x < Math.floor(box.x1 * width); x++) {
      if (Math.abs(a[y * width + x] - b[y * width + x]) > 40) changed += 1;
    }
  }
  return changed;
}

/** What the bundled tools find in a talking head's MP4: its streams, and the mouth at the quietest and loudest moments. */
function inspectTalkingHead(mp4: Buffer) {
  return inTempFile(mp4, (file) => {
    const streams = probe(file);
    const video = streams.find((s) => s.codec_type === 'video');
    const audio = streams.find((s) => s.codec_type === 'audio');
    if (!video?.width || !video.height || !audio) return { streams, video, audio };
    const frames = Math.floor(Number(video.duration) * FPS);
    const moments = quietestAndLoudest(decodeAudio(file), frames);
    const at = (frame: number) => greyFrame(file, (frame + 0.5) / FPS);
    const [quiet, loud] = [at(moments.quiet), at(moments.loud)];
    const { width, height } = video;
    return {
      streams, video, audio, moments,
      // The mouth sits in the lower middle of the face; the band at the top is background that never moves.
      mouthChanged: changedPixels(quiet, loud, width, height, { x0: 0.3, x1: 0.7, y0: 0.45, y1: 0.75 }),
      backgroundChanged: changedPixels(quiet, loud, width, height, { x0: 0, x1: 1, y0: 0, y1: 0.2 }),
    };
  });
}

/** Checks of contract §12 and issue 14 on one rendered talking head. */
function expectLipSyncedMp4(mp4: Buffer, durationSeconds: number): void {
  const found = inspectTalkingHead(mp4);
  expect(found.streams.map((s) => `${s.codec_type}/${s.codec_name}`).sort()).toEqual(['audio/aac', 'video/h264']);
  const [video, audio] = [Number(found.video!.duration), Number(found.audio!.duration)];
  expect(Math.abs(video - audio)).toBeLessThan(0.1);
  expect(Math.abs(durationSeconds - video)).toBeLessThan(0.1);
  const { moments, mouthChanged, backgroundChanged } = found as Required<typeof found>;
  // The speech has both pauses and loud syllables; the frames at them show two different mouths.
  expect(moments.loudRms).toBeGreaterThan(0.02);
  expect(moments.quietRms).toBeLessThan(moments.loudRms / 4);
  expect(mouthChanged).toBeGreaterThan(1000);
  expect(backgroundChanged).toBeLessThan(mouthChanged / 10);
}

/**
 * Talking heads through HTTP on the offline adapters (eSpeak NG speech, bundled-ffmpeg renderer;
 * contract §12): every refusal writes nothing, a preview is a lip-synced MP4 and no content, a full
 * generation becomes a video item that is approved and published to the TikTok and YouTube fakes.
 */
describe('talking heads (offline speech and renderer)', () => {
  let fakes: Pick<PlatformFakes, 'tiktok' | 'youtube'>;
  let backing: Backing;
  let server: TestServer;
  let admin: { Authorization: string };
  let owner: TestUser;
  let intruder: TestUser;
  let charId: string;
  let face: Buffer;
  let previewId: string;

  const createCharacter = async (user: TestUser, name: string) => {
    const res = await api(server).post('/characters').set(user.auth).send({ name, niche: 'wellness' });
    expect(res.status).toBe(201);
    return res.body.character.id as string;
  };
  const enable = async (user: TestUser, id: string) => {
    const res = await api(server).patch(`/characters/${id}`).set(user.auth).send({ talking_head_enabled: true });
    expect([res.status, res.body.character?.talking_head_enabled]).toEqual([200, true]);
  };
  const uploadPrimary = async (user: TestUser, id: string) => {
    const res = await api(server).post(`/characters/${id}/reference-images`).set(user.auth).field('type', 'primary').attach('file', face, { filename: 'face.png', contentType: 'image/png' });
    expect(res.status).toBe(201);
  };
  const speakingCharacter = async (user: TestUser, name: string) => {
    const id = await createCharacter(user, name);
    await enable(user, id);
    await uploadPrimary(user, id);
    return id;
  };
  const preview = (user: TestUser, id: string, script: string) => api(server).post(`/characters/${id}/talking-head/preview`).set(user.auth).send({ script });
  const generate = (user: TestUser, id: string, body: Body) => api(server).post(`/characters/${id}/talking-head/generate`).set(user.auth).send(body);
  const generations = async (user: TestUser, id: string) => (await api(server).get(`/characters/${id}/talking-head/generations`).set(user.auth)).body as Body;
  const generation = async (user: TestUser, id: string) => (await api(server).get(`/talking-head/${id}`).set(user.auth)).body.generation as Body;
  const balance = async (user: TestUser) => (await api(server).get('/billing/credits').set(user.auth)).body.balance as number;
  const ledger = async (user: TestUser) => (await api(server).get('/billing/ledger?page_size=100').set(user.auth)).body.entries as Body[];
  const contentCount = async (user: TestUser, id: string) => (await api(server).get(`/characters/${id}`).set(user.auth)).body.character.content_count as number;
  const media = (url: string) => mediaBytes(server, url);
  const job = (user: TestUser, id: string) => finishedJob(server, user, id, 180_000);

  /** The real OAuth round trip against the platform's fake: our auth URL → its consent → our callback. */
  const connect = async (p: 'tiktok' | 'youtube') => {
    const authUrl = await api(server).get(`/integrations/${p}/auth-url`).query({ redirect: '/x' }).set(owner.auth);
    expect(authUrl.status).toBe(200);
    const consent = await fetch(authUrl.body.url as string, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const callback = new URL(consent.headers.get('location')!);
    const back = await fetch(`http://127.0.0.1:${server.port}${callback.pathname}${callback.search}`, { redirect: 'manual' });
    expect(back.headers.get('location')).toBe(`${APP_URL}/x?connected=${p}`);
    expect((await api(server).get(`/integrations/${p}`).set(owner.auth)).body.integration).toMatchObject({ connected: true, mode: 'live' });
  };
  const published = (postId: string) =>
    waitFor(async () => {
      const res = await api(server).get('/schedule/history').query({ character_id: charId, page_size: 100 }).set(owner.auth);
      const post = (res.body.scheduled_posts as Body[]).find((p) => p.id === postId);
      if (post && post.status !== 'published') throw new Error(`post ${postId} ended ${post.status}: ${JSON.stringify(post.error)}`);
      return post;
    }, 30_000, `post ${postId} to be published`);

  beforeAll(async () => {
    const [tiktok, youtube] = await Promise.all([startTikTokFake(), startYouTubeFake()]);
    fakes = { tiktok, youtube };
    [backing, face] = await Promise.all([createBacking(), facePng()]);
    server = await startServer(backing, {
      ...ENV, ...platformEnv(fakes), APP_URL, PUBLISH_DISPATCH_INTERVAL_MS: '100', PUBLISH_POLL_TIMEOUT_MS: '5000',
    });
    admin = await loginAdmin(server);
    [owner, intruder] = await Promise.all([registerUser(server), registerUser(server)]);
    await grantCredits(server, admin, owner.workspace.id, 1000);
    charId = await speakingCharacter(owner, 'Mira');
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await closePlatformFakes(fakes);
    await backing?.cleanup();
  });

  it('warns at start-up when it decodes uploads with the bundled ffmpeg or ffprobe, naming its version', () => {
    const log = server.output.join('');
    for (const [tool, bundled] of [['ffmpeg', ffmpeg], ['ffprobe', ffprobe]] as const) {
      // A system release >= 6 is preferred, silently; without one (as in CI) the bundled copy runs, with a warning.
      const warning = `Using the bundled ${tool} ${bundled.version}`;
      if (systemRelease(tool) >= 6) expect(log).not.toContain(warning);
      else expect(log).toContain(warning);
    }
  });

  it('refuses to start with an FFMPEG_PATH that does not run', async () => {
    const other = await createBacking();
    try {
      await expect(startServer(other, { ...ENV, FFMPEG_PATH: '/nonexistent/bin/ffmpeg' })).rejects.toThrow(/FFMPEG_PATH=\/nonexistent\/bin\/ffmpeg does not run as ffmpeg/);
    } finally {
      await other.cleanup();
    }
  });

  it('refuses a character with talking heads off (409), without a primary image (409), long scripts and bad shapes (400), writing nothing', async () => {
    const off = await createCharacter(owner, 'Off');
    await uploadPrimary(owner, off);
    const bare = await createCharacter(owner, 'Bare');
    await enable(owner, bare);
    const before = { balance: await balance(owner), ledger: (await ledger(owner)).length };
    const refusals: Array<[string, () => Test, number, string]> = [
      ['off preview', () => preview(owner, off, 'Hello.'), 409, 'invalid_state_transition'],
      ['off generate', () => generate(owner, off, { script: 'Hello.' }), 409, 'invalid_state_transition'],
      ['no image preview', () => preview(owner, bare, 'Hello.'), 409, 'reference_image_required'],
      ['no image generate', () => generate(owner, bare, { script: 'Hello.' }), 409, 'reference_image_required'],
      ['preview 201', () => preview(owner, charId, 'x'.repeat(201)), 400, 'validation_failed'],
      ['generate 2001', () => generate(owner, charId, { script: 'x'.repeat(2001) }), 400, 'validation_failed'],
      ['empty script', () => preview(owner, charId, '   '), 400, 'validation_failed'],
      ['aspect 4:3', () => generate(owner, charId, { script: 'Hello.', aspect_ratio: '4:3' }), 400, 'validation_failed'],
      ['aspect number', () => generate(owner, charId, { script: 'Hello.', aspect_ratio: 1 }), 400, 'validation_failed'],
    ];
    for (const [name, call, status, code] of refusals) {
      const res = await call();
      expect([name, res.status, res.body.code]).toEqual([name, status, code]);
    }
    expect(await balance(owner)).toBe(before.balance);
    expect((await ledger(owner)).length).toBe(before.ledger);
    for (const id of [off, bare, charId]) expect(await generations(owner, id)).toMatchObject({ generations: [], total: 0 });
  });

  it('refuses what the workspace cannot pay with 402 insufficient_credits, writing nothing', async () => {
    const poor = await registerUser(server);
    const id = await speakingCharacter(poor, 'Poor');
    await grantCredits(server, admin, poor.workspace.id, -49);
    const entries = (await ledger(poor)).length;
    for (const [name, call] of [['preview', () => preview(poor, id, 'Hi there.')], ['generate', () => generate(poor, id, { script: 'Hi there.' })]] as const) {
      const res = await call();
      expect([name, res.status, res.body.code]).toEqual([name, 402, 'insufficient_credits']);
    }
    const rich = await registerUser(server);
    const richId = await speakingCharacter(rich, 'Rich');
    const long = await generate(rich, richId, { script: 'Lorem ipsum dolor sit amet. '.repeat(40).slice(0, 2000) });
    expect([long.status, long.body.code]).toEqual([402, 'insufficient_credits']);
    expect([await balance(poor), await balance(rich)]).toEqual([1, 50]);
    expect((await ledger(poor)).length).toBe(entries);
    expect(await generations(poor, id)).toMatchObject({ generations: [], total: 0 });
    expect(await generations(rich, richId)).toMatchObject({ generations: [], total: 0 });
  });

  it('answers 404 for another workspace’s character on the three character routes, and refuses API keys (401)', async () => {
    const calls: Array<[string, (u: TestUser) => Test]> = [
      ['POST preview', (u) => preview(u, charId, 'Hello.')],
      ['POST generate', (u) => generate(u, charId, { script: 'Hello.' })],
      ['GET generations', (u) => api(server).get(`/characters/${charId}/talking-head/generations`).set(u.auth)],
    ];
    for (const [name, call] of calls) {
      const res = await call(intruder);
      expect([name, res.status, res.body.code]).toEqual([name, 404, 'not_found']);
    }
    expect((await api(server).get(`/talking-head/${missingId('th')}`).set(owner.auth)).status).toBe(404);
    const agency = await registerUser(server);
    await setPlan(server, admin, agency.workspace.id, 'agency');
    const own = await createCharacter(agency, 'Keyed');
    const key = await api(server).post('/api-keys').set(agency.auth).send({ name: 'k', scopes: ['characters:read', 'characters:write'] });
    expect(key.status).toBe(201);
    const bearer = { Authorization: `Bearer ${key.body.key}` };
    for (const res of [
      await api(server).get(`/characters/${own}/talking-head/generations`).set(bearer),
      await api(server).post(`/characters/${own}/talking-head/preview`).set(bearer).send({ script: 'Hello.' }),
      await api(server).get(`/talking-head/${missingId('th')}`).set(bearer),
    ]) {
      expect([res.status, res.body.code]).toEqual([401, 'session_required']);
    }
    expect(await balance(agency)).toBe(50);
  });

  it('previews for 2 credits: an MP4 with one H.264 and one AAC stream of the same length, whose mouth moves with the sound, and no content', async () => {
    const before = await balance(owner);
    const script = 'Hello there! Quick tip: drink water, stretch, and take a short walk after lunch.';
    const res = await preview(owner, charId, script);
    expect(res.status).toBe(202);
    expect(res.body.pricing).toEqual({ estimated_seconds: Math.ceil(script.length / 15), credits: 2 });
    expect(res.body.job).toMatchObject({ job_type: 'talking_head', status: 'pending' });
    expect(res.body.generation).toMatchObject({
      id: expect.stringMatching(/^th_[0-9A-Z]{26}$/), character_id: charId, kind: 'preview', status: 'queued', script, aspect_ratio: '9:16',
      audio_url: null, video_url: null, content_id: null, error: null, finished_at: null,
    });
    previewId = res.body.generation.id as string;
    expect(await balance(owner)).toBe(before - 2);
    expect(await job(owner, res.body.job.id as string)).toMatchObject({ status: 'completed', progress: 100 });

    const g = await generation(owner, previewId);
    expect(g).toMatchObject({
      status: 'completed', kind: 'preview', content_id: null, error: null,
      audio_url: expect.any(String), video_url: expect.any(String), thumbnail_url: expect.any(String), duration_seconds: expect.any(Number), finished_at: expect.any(String),
    });
    expect(new URL(g.video_url as string).pathname).toMatch(/\.mp4$/);
    expectLipSyncedMp4(await media(g.video_url as string), g.duration_seconds as number);
    const thumbnail = await sharp(await media(g.thumbnail_url as string)).metadata();
    expect(['jpeg', 'png']).toContain(thumbnail.format);
    const speech = inTempFile(await media(g.audio_url as string), probe);
    expect(speech.map((s) => s.codec_type)).toEqual(['audio']);

    expect(await contentCount(owner, charId)).toBe(0);
    expect(await balance(owner)).toBe(before - 2);
    expect((await api(server).get(`/talking-head/${previewId}`).set(intruder.auth)).status).toBe(404);
    expect(await generations(owner, charId)).toMatchObject({ total: 1, generations: [expect.objectContaining({ id: previewId, status: 'completed' })] });
  }, 240_000);

  it('generates a full talking head for max(5, ⌈length/15⌉) credits; its video item is approved and published to the TikTok and YouTube fakes', async () => {
    const before = await balance(owner);
    const script = 'Good morning! Three habits for calmer days: breathe slowly, write one line in a journal, and step outside for ten minutes of daylight.';
    const credits = Math.max(5, Math.ceil(script.length / 15));
    expect(credits).toBeGreaterThan(5);
    const res = await generate(owner, charId, { script, aspect_ratio: '9:16' });
    expect(res.status).toBe(202);
    expect(res.body.pricing).toEqual({ estimated_seconds: Math.ceil(script.length / 15), credits });
    expect(res.body.generation).toMatchObject({ kind: 'full', status: 'queued', aspect_ratio: '9:16', content_id: null });
    const id = res.body.generation.id as string;
    expect(await balance(owner)).toBe(before - credits);
    expect(await job(owner, res.body.job.id as string)).toMatchObject({ status: 'completed' });

    const g = await generation(owner, id);
    expect(g).toMatchObject({ status: 'completed', kind: 'full', content_id: expect.stringMatching(/^cnt_[0-9A-Z]{26}$/), error: null });
    const item = (await api(server).get(`/content/${g.content_id}`).set(owner.auth)).body.item as Body;
    expect(item).toMatchObject({ id: g.content_id, character_id: charId, content_type: 'video', status: 'ready', platform: 'tiktok' });
    expect(item.media).toEqual([expect.objectContaining({ kind: 'video', url: expect.any(String), thumbnail_url: expect.any(String) })]);
    expect(new URL(item.media[0].url as string).pathname).toMatch(/\.mp4$/);
    expect(Math.abs(item.media[0].duration_seconds - g.duration_seconds)).toBeLessThan(0.05);
    const mp4 = await media(item.media[0].url as string);
    expectLipSyncedMp4(mp4, g.duration_seconds as number);
    expect((await ledger(owner)).filter((e) => e.ref_id === id)).toEqual([expect.objectContaining({ amount: -credits, reason: 'talking_head_full' })]);
    expect(await balance(owner)).toBe(before - credits);
    expect(await contentCount(owner, charId)).toBe(1);

    const approved = await api(server).post(`/characters/${charId}/content/${item.id}/approve`).set(owner.auth);
    expect([approved.status, approved.body.item?.status]).toEqual([200, 'approved']);
    await connect('tiktok');
    await connect('youtube');
    fakes.tiktok.reset();
    fakes.youtube.reset();
    const scheduled = await api(server).post(`/content/${item.id}/schedule`).set(owner.auth)
      .send({ scheduled_at: new Date(Date.now() + 1000).toISOString(), platforms: ['tiktok', 'youtube'] });
    expect(scheduled.status).toBe(201);
    const posts = scheduled.body.scheduled_posts as Body[];
    expect(posts.map((p) => p.platform).sort()).toEqual(['tiktok', 'youtube']);
    for (const post of posts) {
      const done = await published(post.id as string);
      const fake = fakes[post.platform as 'tiktok' | 'youtube'];
      expect(fake.posts).toHaveLength(1);
      expect(done).toMatchObject({ status: 'published', remote_post_id: fake.posts[0].id, error: null });
    }
    // TikTok pulls the MP4 from the signed URL it was given; YouTube takes it in the upload session's PUT.
    const pulled = await waitFor(async () => fakes.tiktok.mediaFetches[0], 10_000, 'TikTok to pull the video');
    expect(pulled).toMatchObject({ status: 200, contentType: 'video/mp4' });
    expect(pulled.bytes.equals(mp4)).toBe(true);
    const uploads = fakes.youtube.requestsTo('/upload/youtube/v3/videos', 'PUT');
    expect(uploads).toHaveLength(1);
    expect(uploads[0].body.equals(mp4)).toBe(true);
    expect(fakes.youtube.posts[0].extra).toMatchObject({ contentType: 'video/mp4', bytes: mp4.length });
    expect((await api(server).get(`/content/${item.id}`).set(owner.auth)).body.item.status).toBe('published');
  }, 300_000);
});

/** The renderer fails (D-ID's fake ends every talk in `error`): the generation and job fail, and the charge comes back once. */
describe('talking heads whose renderer fails (D-ID fake)', () => {
  let did: FakeDid;
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    did = await startFakeDid({ pollsPerStep: 1 });
    did.setMode({ kind: 'error', errorKind: 'FaceError', description: 'no face found' });
    backing = await createBacking();
    server = await startServer(backing, { ...ENV, TALKING_HEAD_PROVIDER: 'd-id', DID_API_URL: did.url, DID_API_KEY: did.apiKey });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await did?.close();
    await backing?.cleanup();
  });

  it('fails the generation and its job, refunds the full charge in exactly one talking_head_refund row and makes no content', async () => {
    const user = await registerUser(server);
    const face = await facePng();
    const char = (await api(server).post('/characters').set(user.auth).send({ name: 'Nia', niche: 'cooking' })).body.character.id as string;
    expect((await api(server).patch(`/characters/${char}`).set(user.auth).send({ talking_head_enabled: true })).status).toBe(200);
    expect((await api(server).post(`/characters/${char}/reference-images`).set(user.auth).field('type', 'primary').attach('file', face, { filename: 'face.png', contentType: 'image/png' })).status).toBe(201);
    const balance = async () => (await api(server).get('/billing/credits').set(user.auth)).body.balance as number;
    const before = await balance();

    const res = await api(server).post(`/characters/${char}/talking-head/generate`).set(user.auth).send({ script: 'Short and sweet.' });
    expect(res.status).toBe(202);
    expect(res.body.pricing).toEqual({ estimated_seconds: 2, credits: 5 });
    const id = res.body.generation.id as string;
    const job = await waitFor(async () => {
      const j = (await api(server).get(`/jobs/${res.body.job.id}`).set(user.auth)).body.job as Body;
      return ['completed', 'failed'].includes(j?.status) ? j : undefined;
    }, 120_000, 'the talking head job');
    expect(job.status).toBe('failed');
    const g = (await api(server).get(`/talking-head/${id}`).set(user.auth)).body.generation as Body;
    expect(g).toMatchObject({ status: 'failed', video_url: null, content_id: null, error: expect.objectContaining({ code: expect.any(String) }) });
    // The speech was made and the talk reached D-ID: the failure is the renderer's.
    expect(did.requestsTo('/talks', 'POST')).toHaveLength(1);
    const entries = ((await api(server).get('/billing/ledger?page_size=100').set(user.auth)).body.entries as Body[]).filter((e) => e.ref_id === id);
    expect(entries.map((e) => [e.reason, e.amount]).sort()).toEqual([['talking_head_full', -5], ['talking_head_refund', 5]]);
    expect(await balance()).toBe(before);
    expect((await api(server).get(`/characters/${char}`).set(user.auth)).body.character.content_count).toBe(0);
  }, 180_000);
});
