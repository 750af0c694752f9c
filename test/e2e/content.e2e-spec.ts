import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, grantCredits, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { authedSocket, type TestSocket } from '../helpers/socket.js';

const ITEM_KEYS = [
  'caption', 'character_id', 'content_type', 'created_at', 'cta', 'hashtags', 'id', 'image_prompt', 'job', 'media', 'planned_for',
  'platform', 'published_at', 'rejection_reason', 'status', 'updated_at', 'variants_locked',
].sort();
/** A new order's item: the job stands beside it in `{item, job}`, never a second copy inside it. */
const NEW_ITEM_KEYS = ITEM_KEYS.filter((k) => k !== 'job');
const ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50' };

type Item = Record<string, any>;

/**
 * Content through HTTP and the socket. With PostgreSQL + Redis the API only enqueues and a
 * separate worker runs every content job; on the embedded defaults the API runs them itself.
 */
describe('content', () => {
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let admin: { Authorization: string };
  let alice: TestUser;
  let bob: TestUser;
  let aliceCharacter: string;
  const sockets: TestSocket[] = [];

  const createCharacter = async (user: TestUser, body: Record<string, unknown> = {}): Promise<string> => {
    const res = await api(server).post('/characters').set(user.auth).send({ name: 'Mia', niche: 'travel', ...body });
    expect(res.status).toBe(201);
    return res.body.character.id as string;
  };
  const balance = async (user: TestUser): Promise<number> => (await api(server).get('/billing/credits').set(user.auth)).body.balance as number;
  const ledger = async (user: TestUser): Promise<Item[]> => (await api(server).get('/billing/ledger?page_size=100').set(user.auth)).body.entries as Item[];
  const getItem = async (user: TestUser, id: string): Promise<Item> => (await api(server).get(`/content/${id}`).set(user.auth)).body.item as Item;
  const waitForItem = (user: TestUser, id: string, statuses: string[], timeoutMs = 30_000): Promise<Item> =>
    waitFor(async () => {
      const item = await getItem(user, id);
      return statuses.includes(item?.status) ? item : undefined;
    }, timeoutMs, `item ${id} to be ${statuses.join('|')}`);
  const generate = (user: TestUser, body: Record<string, unknown>) =>
    api(server).post('/content/generate').set(user.auth).send({ platform: 'instagram', prompt: 'Sunrise run by the river', ...body });
  // Media URLs are signed: the path and its query (expiry and signature).
  const mediaPath = (url: string) => `${new URL(url).pathname}${new URL(url).search}`;

  beforeAll(async () => {
    backing = await createBacking();
    // Info level, so the test can see which process started consuming jobs.
    server = await startServer(backing, { ...ENV, LOG_LEVEL: 'info' });
    if (E2E_MODE === 'services') worker = await startWorker(backing, { LOG_LEVEL: 'info' });
    admin = await loginAdmin(server);
    alice = await registerUser(server);
    bob = await registerUser(server);
    await grantCredits(server, admin, alice.workspace.id, 1000);
    aliceCharacter = await createCharacter(alice);
  }, 90_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    await Promise.all([server?.stop(), worker?.stop()]);
    await backing?.cleanup();
  });

  it('full flow: generate → job progress and completion on the socket → ready → variants → select → approve', async () => {
    const socket = await authedSocket(server.wsUrl, alice.token);
    sockets.push(socket);
    const before = await balance(alice);

    const res = await generate(alice, { character_id: aliceCharacter, type: 'single' });
    expect(res.status).toBe(201);
    const { item, job } = res.body;
    expect(Object.keys(res.body).sort()).toEqual(['item', 'job']);
    expect(Object.keys(item).sort()).toEqual(NEW_ITEM_KEYS);
    expect(item).toMatchObject({
      character_id: aliceCharacter, status: 'queued', platform: 'instagram', content_type: 'single', image_prompt: 'Sunrise run by the river',
      caption: null, hashtags: [], cta: null, media: [], variants_locked: false, planned_for: null, rejection_reason: null, published_at: null,
    });
    expect(item.id).toMatch(/^cnt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(job).toMatchObject({ status: 'pending', job_type: 'generate_image', progress: 0, content_id: item.id, character_id: aliceCharacter });
    // Reading the item shows its job.
    expect((await getItem(alice, item.id)).job).toMatchObject({ id: job.id, job_type: 'generate_image' });
    expect(await balance(alice)).toBe(before - 3);

    const completed = await socket.waitFor((m) => m.type === 'job.completed' && m.job.id === job.id, 30_000);
    expect(completed.job).toMatchObject({ status: 'completed', progress: 100, error: null });
    const progress = socket.messages.filter((m) => m.type === 'job.progress' && m.job.id === job.id).map((m) => m.job.progress as number);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    const ready = await socket.waitFor((m) => m.type === 'content.updated' && m.item.id === item.id && m.item.status === 'ready');
    const statuses = socket.messages.filter((m) => m.type === 'content.updated' && m.item.id === item.id).map((m) => m.item.status as string);
    expect(statuses).toEqual(['queued', 'generating', 'ready']);
    expect(Object.keys(ready.item).sort()).toEqual(ITEM_KEYS);

    const done = await getItem(alice, item.id);
    expect(done.status).toBe('ready');
    expect(done.media).toEqual([
      { index: 0, kind: 'image', url: expect.stringContaining(`/api/v1/media/content/${item.id}/`), width: expect.any(Number), height: expect.any(Number), review_status: 'pending' },
    ]);
    expect(typeof done.caption).toBe('string');
    // The offline caption quotes the prompt as written, capitals included.
    expect(done.caption).toContain('Sunrise run by the river');
    expect(done.hashtags.length).toBeGreaterThan(0);
    const image = await fetch(`http://127.0.0.1:${server.port}${mediaPath(done.media[0].url as string)}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toMatch(/^image\//);

    const created = await api(server).post(`/content/${item.id}/variants`).set(alice.auth).send({ count: 3 });
    expect(created.status).toBe(201);
    expect(created.body.variants.map((v: Item) => [v.index, v.style, v.selected])).toEqual([
      [0, 'story-led', false], [1, 'question-led', false], [2, 'cta-led', false],
    ]);
    for (const v of created.body.variants) expect(Object.keys(v).sort()).toEqual(['caption', 'cta', 'hashtags', 'index', 'selected', 'style']);
    expect(await balance(alice)).toBe(before - 4);
    const listed = await api(server).get(`/content/${item.id}/variants`).set(alice.auth);
    expect(listed.body).toEqual(created.body);

    const selected = await api(server).put(`/content/${item.id}/variants/1/select`).set(alice.auth);
    expect(selected.status).toBe(200);
    expect(selected.body.variants.map((v: Item) => v.selected)).toEqual([false, true, false]);
    expect(selected.body.item).toMatchObject({ caption: created.body.variants[1].caption, hashtags: created.body.variants[1].hashtags, cta: created.body.variants[1].cta });

    const two = await api(server).post(`/content/${item.id}/variants`).set(alice.auth).send({ count: 2 });
    expect(two.body.variants.map((v: Item) => v.style)).toEqual(['story-led', 'question-led']);
    expect((await api(server).get(`/content/${item.id}/variants`).set(alice.auth)).body.variants).toHaveLength(2);
    expect((await api(server).put(`/content/${item.id}/variants/2/select`).set(alice.auth)).status).toBe(404);

    const approved = await api(server).post(`/characters/${aliceCharacter}/content/${item.id}/approve`).set(alice.auth);
    expect(approved.status).toBe(200);
    expect(approved.body.item.status).toBe('approved');
    await socket.waitFor((m) => m.type === 'content.updated' && m.item.id === item.id && m.item.status === 'approved');

    const entries = (await ledger(alice)).filter((e) => e.ref_id === item.id);
    expect(entries.map((e) => [e.reason, e.amount]).sort()).toEqual([['caption_variants', -1], ['caption_variants', -1], ['content_image', -3]]);

    // With Redis the API only enqueued: the separate worker ran the job.
    const consumer = (p: RunningProcess) => p.output.join('').includes('"msg":"job consumer started"');
    expect(consumer(server)).toBe(E2E_MODE !== 'services');
    if (worker) expect(consumer(worker)).toBe(true);
  }, 60_000);

  it('a carousel is three images charged 3 each; a caption given is kept', async () => {
    const before = await balance(alice);
    const res = await generate(alice, { character_id: aliceCharacter, type: 'carousel', caption: 'My own words', hashtags: ['#mine'], cta: 'Say hi' });
    expect(res.status).toBe(201);
    expect(await balance(alice)).toBe(before - 9);
    const done = await waitForItem(alice, res.body.item.id, ['ready']);
    expect(done.media.map((m: Item) => m.index)).toEqual([0, 1, 2]);
    expect(new Set(done.media.map((m: Item) => m.url)).size).toBe(3);
    expect(done).toMatchObject({ caption: 'My own words', hashtags: ['#mine'], cta: 'Say hi' });
  });

  it('generate-week answers 202 and fills the queue and the calendar for seven days', async () => {
    const character = await createCharacter(alice, { name: 'Ken' });
    expect((await api(server).patch(`/characters/${character}`).set(alice.auth).send({ timezone: 'Asia/Tokyo' })).status).toBe(200);
    const before = await balance(alice);
    const res = await api(server).post('/content/generate-week').set(alice.auth).send({
      character_id: character, week: '2030-01-07', posts_per_day: 2, platforms: ['instagram', 'x', 'pinboard'],
      trending_topics: ['winter training'], guidance: 'Keep it upbeat', target_language: 'en',
    });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body)).toEqual(['job']);
    expect(res.body.job).toMatchObject({ job_type: 'generate_week', status: 'pending', progress: 0, character_id: character, content_id: null });
    // 14 posts at 1 each; Instagram's 2nd and 5th are reels (videos of 5 s at 1 a second), the 12 others images at 3.
    expect(await balance(alice)).toBe(before - 60);

    const job = await waitFor(async () => {
      const j = (await api(server).get(`/jobs/${res.body.job.id}`).set(alice.auth)).body.job;
      return j?.status === 'completed' ? j : undefined;
    }, 30_000, 'the week job');
    expect(job.result.items).toBe(14);
    const ready = await waitFor(async () => {
      const page = (await api(server).get(`/content/queue?character_id=${character}&status=ready&page_size=100`).set(alice.auth)).body;
      // The page's items, not its total: the two are separate reads, and an item may turn ready in between.
      return page.items.length === 14 ? page : undefined;
    }, 60_000, 'all 14 items ready');
    expect(ready.items.every((i: Item) => i.media.length === 1 && i.caption)).toBe(true);
    const kinds = ready.items.map((i: Item) => `${i.content_type}:${i.media[0].kind}`).sort();
    expect(kinds).toEqual([...Array(2).fill('reel:video'), ...Array(11).fill('single:image'), 'story:image'].sort());
    // The guidance steers the writer; it is never written about as a topic.
    expect(ready.items.filter((i: Item) => /keep it upbeat/i.test(`${i.caption} ${i.image_prompt}`)).map((i: Item) => i.caption)).toEqual([]);

    const queue = await api(server).get(`/content/queue?character_id=${character}&page_size=5`).set(alice.auth);
    expect(queue.status).toBe(200);
    expect(queue.body).toMatchObject({ page: 1, page_size: 5, total: 14 });
    expect(queue.body.items).toHaveLength(5);
    const planned = queue.body.items.map((i: Item) => i.planned_for);
    expect(planned).toEqual([...planned].sort());

    const calendar = await api(server).get(`/content/calendar?character_id=${character}&from=2030-01-07&to=2030-01-13`).set(alice.auth);
    expect(calendar.status).toBe(200);
    expect(calendar.body).toMatchObject({ from: '2030-01-07', to: '2030-01-13', timezone: 'Asia/Tokyo' });
    expect(calendar.body.days.map((d: Item) => d.date)).toEqual(['07', '08', '09', '10', '11', '12', '13'].map((d) => `2030-01-${d}`));
    const platforms: string[] = [];
    for (const [n, day] of calendar.body.days.entries()) {
      expect(day.scheduled_posts).toEqual([]);
      // 10:00 and 18:00 in Tokyo (UTC+9).
      const date = `2030-01-${String(7 + n).padStart(2, '0')}`;
      expect(day.items.map((i: Item) => i.planned_for)).toEqual([`${date}T01:00:00.000Z`, `${date}T09:00:00.000Z`]);
      platforms.push(...day.items.map((i: Item) => i.platform as string));
    }
    expect(platforms.slice(0, 6)).toEqual(['instagram', 'x', 'pinboard', 'instagram', 'x', 'pinboard']);

    const mirror = await api(server).get(`/characters/${character}/content/calendar?from=2030-01-07&to=2030-01-13`).set(alice.auth);
    expect(mirror.body).toEqual(calendar.body);
    const mirrorQueue = await api(server).get(`/characters/${character}/content/queue?status=ready`).set(alice.auth);
    expect(mirrorQueue.body.total).toBe(14);
    const everyone = await api(server).get('/content/calendar?from=2030-01-07&to=2030-01-13').set(alice.auth);
    expect(everyone.body.timezone).toBe('America/New_York');

    const entries = await ledger(alice);
    expect(entries.filter((e) => e.ref_id === res.body.job.id).map((e) => [e.reason, e.amount])).toEqual([['content_week_plan', -60]]);
    const itemIds = new Set(ready.items.map((i: Item) => i.id));
    expect(entries.filter((e) => itemIds.has(e.ref_id))).toEqual([]);

    const viaMirror = await api(server).post(`/characters/${character}/content/generate-week`).set(alice.auth).send({ week: '2030-02-04' });
    expect(viaMirror.status).toBe(202);
    expect(viaMirror.body.job).toMatchObject({ job_type: 'generate_week', character_id: character });
    expect(await balance(alice)).toBe(before - 60 - 32);
  }, 120_000);

  it('plans TikTok and YouTube slots as short videos (MP4 from the video generator), priced per second', async () => {
    // A new workspace: the week fits in the signup grant.
    const dana = await registerUser(server);
    const character = await createCharacter(dana, { name: 'Vid' });
    const before = await balance(dana);
    const res = await api(server).post('/content/generate-week').set(dana.auth).send({
      character_id: character, week: '2030-03-04', posts_per_day: 1, platforms: ['tiktok', 'video_share'],
    });
    expect(res.status).toBe(202);
    // Seven posts at 1 each, each with a 5-second video at 1 a second.
    expect([before, await balance(dana)]).toEqual([50, 50 - 7 * (1 + 5)]);
    const ready = await waitFor(async () => {
      const page = (await api(server).get(`/content/queue?character_id=${character}&status=ready&page_size=100`).set(dana.auth)).body;
      return page.total === 7 ? page : undefined;
    }, 120_000, 'all 7 videos ready');
    for (const item of ready.items as Item[]) {
      expect([item.platform, item.content_type, item.media.length, item.media[0].kind]).toEqual([item.platform, 'short', 1, 'video']);
      expect(item.media[0]).toMatchObject({ duration_seconds: 5 });
      const file = await fetch(new URL(mediaPath(item.media[0].url), server.url));
      expect([file.status, file.headers.get('content-type')]).toEqual([200, 'video/mp4']);
      // An MP4 opens with its ftyp box.
      expect(Buffer.from(await file.arrayBuffer()).subarray(4, 8).toString('latin1')).toBe('ftyp');
    }
    expect(new Set((ready.items as Item[]).map((i) => i.platform))).toEqual(new Set(['tiktok', 'video_share']));
    // The videos were paid with the week; none was charged again.
    const itemIds = new Set((ready.items as Item[]).map((i) => i.id));
    expect((await ledger(dana)).filter((e) => itemIds.has(e.ref_id))).toEqual([]);
  }, 180_000);

  it('refuses paid work the balance cannot cover with 402 and creates nothing', async () => {
    const carol = await registerUser(server);
    const character = await createCharacter(carol);
    const count = async () => (await api(server).get('/content/queue?status=queued,generating,ready,approved,rejected,failed,published').set(carol.auth)).body.total as number;

    const week = await api(server).post('/content/generate-week').set(carol.auth).send({ character_id: character, posts_per_day: 2 });
    expect(week.status).toBe(402);
    expect(week.body).toMatchObject({ code: 'insufficient_credits', details: { required: 66, balance: 50 } });
    const video = await api(server).post('/content/video/generate').set(carol.auth).send({ character_id: character, platform: 'tiktok', scene_description: 'x', duration_seconds: 60 });
    expect(video.status).toBe(402);
    expect(await count()).toBe(0);
    expect(await balance(carol)).toBe(50);

    for (let i = 0; i < 5; i++) expect((await generate(carol, { character_id: character, type: 'carousel' })).status).toBe(201);
    expect((await generate(carol, { character_id: character })).status).toBe(201);
    expect(await balance(carol)).toBe(2);
    const short = await generate(carol, { character_id: character });
    expect(short.status).toBe(402);
    expect(short.body).toMatchObject({ code: 'insufficient_credits', details: { required: 3, balance: 2 } });
    expect(await count()).toBe(6);

    const item = (await api(server).get('/content/queue?status=queued,generating,ready').set(carol.auth)).body.items[0];
    const id = (await waitForItem(carol, item.id, ['ready'])).id;
    expect((await api(server).post(`/content/${id}/variants`).set(carol.auth).send({ count: 2 })).status).toBe(201);
    expect((await api(server).post(`/content/${id}/variants`).set(carol.auth).send({ count: 2 })).status).toBe(201);
    const broke = await api(server).post(`/content/${id}/variants`).set(carol.auth).send({ count: 3 });
    expect(broke.status).toBe(402);
    expect((await api(server).get(`/content/${id}/variants`).set(carol.auth)).body.variants).toHaveLength(2);
    expect(await balance(carol)).toBe(0);
    const entries = await ledger(carol);
    expect(entries.filter((e) => e.amount < 0)).toHaveLength(8);
    expect(entries.filter((e) => e.amount > 0).map((e) => e.reason)).toEqual(['allocation_granted']);
  }, 90_000);

  it('25 concurrent orders of 3 credits against the 50 of a new workspace: 16 accepted, each with its item, job and ledger row; 9 × 402 that leave nothing behind', async () => {
    const dave = await registerUser(server);
    const character = await createCharacter(dave);
    expect(await balance(dave)).toBe(50);
    const answers = await Promise.all(Array.from({ length: 25 }, () => generate(dave, { character_id: character, type: 'single' })));
    const accepted = answers.filter((r) => r.status === 201);
    expect(accepted).toHaveLength(16);
    expect(answers.filter((r) => r.status === 402 && r.body.code === 'insufficient_credits')).toHaveLength(9);
    expect(await balance(dave)).toBe(2);

    const acceptedIds = accepted.map((r) => r.body.item.id as string).sort();
    const queue = await api(server).get('/content/queue?status=queued,generating,ready,failed&page_size=100').set(dave.auth);
    expect(queue.body.items.map((i: Item) => i.id).sort()).toEqual(acceptedIds);
    for (const r of accepted) expect((await api(server).get(`/jobs/${r.body.job.id}`).set(dave.auth)).body.job.content_id).toBe(r.body.item.id);
    const debits = (await ledger(dave)).filter((e) => e.amount < 0);
    expect(debits.map((e) => e.ref_id).sort()).toEqual(acceptedIds);
    expect(debits.map((e) => e.balance_after as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => 2 + 3 * i));
  }, 90_000);

  it('validates bodies, queries and paths with 400', async () => {
    const c = aliceCharacter;
    const cases: Array<[string, string, Record<string, unknown>?]> = [
      ['post', '/content/generate', { character_id: c, platform: 'instagram' }],
      ['post', '/content/generate', { character_id: c, platform: 'facebook', prompt: 'x' }],
      ['post', '/content/generate', { character_id: c, platform: 'instagram', prompt: 'x', type: 'gif' }],
      ['post', '/content/generate', { character_id: c, platform: 'instagram', prompt: 'x', extra: 1 }],
      ['post', '/content/generate', { character_id: c, platform: 'instagram', prompt: 'x', hashtags: '#one' }],
      ['post', '/content/generate', { character_id: c, platform: 'instagram', prompt: 'x'.repeat(2001) }],
      ['post', '/content/generate', { character_id: c, platform: 'instagram', prompt: '   ' }],
      ['post', '/content/generate', { platform: 'instagram', prompt: 'x' }],
      ['post', '/content/video/generate', { character_id: c, platform: 'tiktok', scene_description: 'x', duration_seconds: 4 }],
      ['post', '/content/video/generate', { character_id: c, platform: 'tiktok', scene_description: 'x', duration_seconds: 61 }],
      ['post', '/content/video/generate', { character_id: c, platform: 'tiktok', scene_description: 'x', duration_seconds: 8.5 }],
      ['post', '/content/video/generate', { character_id: c, platform: 'tiktok', scene_description: 'x', aspect_ratio: '4:3' }],
      ['post', '/content/video/generate', { character_id: c, platform: 'tiktok', scene_description: 'x', type: 'single' }],
      ['post', '/content/video/generate', { character_id: c, platform: 'tiktok' }],
      ['post', '/content/video/generate', { character_id: c, platform: 'myspace', scene_description: 'x' }],
      ['post', '/content/generate-week', { character_id: c, posts_per_day: 0 }],
      ['post', '/content/generate-week', { character_id: c, posts_per_day: 5 }],
      ['post', '/content/generate-week', { character_id: c, week: '2030-02-30' }],
      ['post', '/content/generate-week', { character_id: c, platforms: [] }],
      ['post', '/content/generate-week', { character_id: c, platforms: ['myspace'] }],
      ['post', '/content/generate-week', { character_id: c, target_language: 'english!!' }],
      ['post', `/characters/${c}/content/generate-week`, { character_id: c }],
      ['get', '/content/queue?status=bogus'],
      ['get', '/content/queue?platform=facebook'],
      ['get', '/content/queue?page_size=101'],
      ['get', '/content/calendar?from=2030-13-01'],
      ['get', '/content/calendar?from=2030-01-01&to=2030-03-04'],
      ['get', '/content/calendar?from=2030-01-10&to=2030-01-09'],
      ['get', `/characters/${c}/content/queue?character_id=${c}`],
    ];
    for (const [method, path, body] of cases) {
      const req = method === 'get' ? api(server).get(path) : api(server).post(path).send(body ?? {});
      const res = await req.set(alice.auth);
      expect([path, body, res.status, res.body.code]).toEqual([path, body, 400, 'validation_failed']);
    }
    const item = (await generate(alice, { character_id: c })).body.item;
    const patches: Array<Record<string, unknown>> = [
      { planned_for: 'tomorrow' }, { planned_for: '2030-01-01' }, { content_type: 'gif' }, { image_prompt: '' }, { status: 'approved' }, { hashtags: null },
    ];
    for (const body of patches) {
      const res = await api(server).patch(`/content/${item.id}`).set(alice.auth).send(body);
      expect([body, res.status]).toEqual([body, 400]);
    }
    for (const count of [1, 4, 2.5, '2']) {
      expect((await api(server).post(`/content/${item.id}/variants`).set(alice.auth).send({ count })).status).toBe(400);
    }
  }, 60_000);

  it('answers 404 for another workspace’s items and characters, and for malformed ids, on every id route', async () => {
    const item = (await generate(alice, { character_id: aliceCharacter })).body.item;
    const video = (await api(server).post('/content/video/generate').set(alice.auth).send({ character_id: aliceCharacter, platform: 'tiktok', scene_description: 'x' })).body.item;
    await waitForItem(alice, item.id, ['ready']);
    const other = await createCharacter(alice, { name: 'Other' });
    const routes = (cnt: string, chr: string): Array<[string, string, Record<string, unknown>?]> => [
      ['get', `/content/${cnt}`],
      ['patch', `/content/${cnt}`, { caption: 'x' }],
      ['post', `/content/${cnt}/variants`, { count: 2 }],
      ['get', `/content/${cnt}/variants`],
      ['put', `/content/${cnt}/variants/0/select`],
      ['get', `/content/video/${cnt}/status`],
      ['post', `/characters/${chr}/content/${cnt}/approve`],
      ['post', `/characters/${chr}/content/${cnt}/reject`, {}],
      ['post', `/characters/${chr}/content/${cnt}/regenerate`],
      ['post', `/characters/${chr}/content/${cnt}/media/0/approve`],
      ['post', `/characters/${chr}/content/${cnt}/media/0/reject`],
      ['get', `/characters/${chr}/content/queue`],
      ['get', `/characters/${chr}/content/calendar`],
      ['post', `/characters/${chr}/content/generate-week`, {}],
      ['get', `/content/queue?character_id=${chr}`],
      ['get', `/content/calendar?character_id=${chr}`],
      ['post', '/content/generate', { character_id: chr, platform: 'instagram', prompt: 'x' }],
      ['post', '/content/generate-week', { character_id: chr }],
      ['post', '/content/video/generate', { character_id: chr, platform: 'tiktok', scene_description: 'x' }],
    ];
    const send = (user: TestUser, [method, path, body]: [string, string, Record<string, unknown>?]) => {
      const agent = api(server);
      const req = method === 'get' ? agent.get(path) : method === 'patch' ? agent.patch(path) : method === 'put' ? agent.put(path) : agent.post(path);
      return (body ? req.send(body) : req).set(user.auth);
    };
    const bobBefore = await balance(bob);
    for (const route of routes(video.id, aliceCharacter)) {
      const res = await send(bob, route);
      expect([route[1], res.status, res.body.code]).toEqual([route[1], 404, 'not_found']);
    }
    for (const route of routes('cnt_123', 'char_nope').concat(routes(missingId('char'), missingId('cnt')))) {
      const res = await send(alice, route);
      expect([route[1], res.status, res.body.code]).toEqual([route[1], 404, 'not_found']);
    }
    // A content id of another character of the same workspace is missing on that character's routes.
    for (const action of ['approve', 'reject', 'regenerate', 'media/0/approve', 'media/0/reject']) {
      const res = await api(server).post(`/characters/${other}/content/${item.id}/${action}`).set(alice.auth).send({});
      expect([action, res.status]).toEqual([action, 404]);
    }
    // An image item has no video status; media and variant indexes out of range are missing.
    expect((await api(server).get(`/content/video/${item.id}/status`).set(alice.auth)).status).toBe(404);
    for (const idx of ['1', '-1', 'x', '1.5']) {
      const res = await api(server).post(`/characters/${aliceCharacter}/content/${item.id}/media/${idx}/approve`).set(alice.auth);
      expect([idx, res.status]).toEqual([idx, 404]);
    }
    expect((await api(server).put(`/content/${item.id}/variants/0/select`).set(alice.auth)).status).toBe(404);
    expect(await balance(bob)).toBe(bobBefore);
    expect((await getItem(alice, item.id)).status).toBe('ready');
  }, 60_000);

  it('video: defaults, limits and the status route', async () => {
    const before = await balance(alice);
    const res = await api(server).post('/content/video/generate').set(alice.auth).send({ character_id: aliceCharacter, platform: 'short_video', scene_description: 'Neon night market walk' });
    expect(res.status).toBe(202);
    expect(res.body.item).toMatchObject({ status: 'queued', platform: 'short_video', content_type: 'short', image_prompt: 'Neon night market walk' });
    expect(res.body.job).toMatchObject({ job_type: 'generate_video', status: 'pending', content_id: res.body.item.id });
    expect(Object.keys(res.body.item).sort()).toEqual(NEW_ITEM_KEYS);
    expect(await balance(alice)).toBe(before - 8);
    const first = await api(server).get(`/content/video/${res.body.item.id}/status`).set(alice.auth);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['id', 'job', 'status', 'video']);
    await waitForItem(alice, res.body.item.id, ['ready']);
    const status = await api(server).get(`/content/video/${res.body.item.id}/status`).set(alice.auth);
    expect(status.body).toMatchObject({ id: res.body.item.id, status: 'ready', job: { status: 'completed', progress: 100 } });
    expect(status.body.video).toEqual({ url: expect.any(String), thumbnail_url: expect.any(String), duration_seconds: 8, aspect_ratio: '9:16' });
    const file = await fetch(`http://127.0.0.1:${server.port}${mediaPath(status.body.video.url as string)}`);
    expect(file.status).toBe(200);
    const item = await getItem(alice, res.body.item.id);
    // The same thumbnail (its path; the signature's expiry may move on between two reads).
    expect(item.media).toEqual([expect.objectContaining({ index: 0, kind: 'video', review_status: 'pending', duration_seconds: 8 })]);
    expect(new URL(item.media[0].thumbnail_url as string).pathname).toBe(new URL(status.body.video.thumbnail_url as string).pathname);

    const typeFor = async (platform: string, extra: Record<string, unknown> = {}) => {
      const r = await api(server).post('/content/video/generate').set(alice.auth).send({ character_id: aliceCharacter, platform, scene_description: 'x', ...extra });
      expect(r.status).toBe(202);
      return r.body.item.content_type as string;
    };
    expect(await typeFor('youtube')).toBe('short');
    expect(await typeFor('video_share')).toBe('short');
    expect(await typeFor('tiktok')).toBe('short');
    expect(await typeFor('instagram')).toBe('reel');
    expect(await typeFor('x')).toBe('reel');
    expect(await typeFor('pinboard')).toBe('reel');
    const mid = await balance(alice);
    expect(await typeFor('tiktok', { type: 'video', duration_seconds: 5, aspect_ratio: '16:9' })).toBe('video');
    expect(await typeFor('tiktok', { duration_seconds: 60, aspect_ratio: '1:1' })).toBe('short');
    expect(await balance(alice)).toBe(mid - 65);
  }, 60_000);

  it('PATCH edits the item; an empty PATCH changes nothing', async () => {
    const item = (await generate(alice, { character_id: aliceCharacter })).body.item;
    const res = await api(server).patch(`/content/${item.id}`).set(alice.auth).send({
      caption: 'Edited', hashtags: ['#edit'], cta: 'Go', image_prompt: 'New prompt', platform: 'pinboard', content_type: 'story', planned_for: '2030-05-01T12:30:00+02:00',
    });
    expect(res.status).toBe(200);
    expect(res.body.item).toMatchObject({
      caption: 'Edited', hashtags: ['#edit'], cta: 'Go', image_prompt: 'New prompt', platform: 'pinboard', content_type: 'story', planned_for: '2030-05-01T10:30:00.000Z',
    });
    const cleared = await api(server).patch(`/content/${item.id}`).set(alice.auth).send({ caption: null, planned_for: null });
    expect(cleared.body.item).toMatchObject({ caption: null, planned_for: null, cta: 'Go' });
    const same = await api(server).patch(`/content/${item.id}`).set(alice.auth).send({});
    expect(same.status).toBe(200);
    expect(same.body.item.caption).toBeNull();
  });

  it('the public API generates and reads content with an API key of the right scopes', async () => {
    const agency = await registerUser(server);
    await setPlan(server, admin, agency.workspace.id, 'agency');
    const character = await createCharacter(agency);
    const key = async (scopes: string[]) => {
      const r = await api(server).post('/api-keys').set(agency.auth).send({ name: `content ${scopes.join(' ')}`, scopes });
      expect(r.status).toBe(201);
      return { Authorization: `Bearer ${r.body.key as string}` };
    };
    const full = await key(['content:generate', 'content:read']);
    const res = await api(server).post('/public/generate').set(full).send({ character_id: character, platform: 'instagram', prompt: 'Public', type: 'single' });
    expect(res.status).toBe(201);
    expect(res.body.job).toMatchObject({ job_type: 'generate_image', status: 'pending' });
    expect(Object.keys(res.body.item).sort()).toEqual(NEW_ITEM_KEYS);
    const read = await api(server).get(`/public/content/${res.body.item.id}`).set(full);
    expect(read.status).toBe(200);
    expect(read.body.item.id).toBe(res.body.item.id);
    expect(read.body.item.job).toMatchObject({ id: res.body.job.id });

    const readOnly = await key(['content:read']);
    expect((await api(server).post('/public/generate').set(readOnly).send({ character_id: character, platform: 'instagram', prompt: 'x' })).body.code).toBe('insufficient_scope');
    const generateOnly = await key(['content:generate']);
    expect((await api(server).get(`/public/content/${res.body.item.id}`).set(generateOnly)).body.code).toBe('insufficient_scope');
    expect((await api(server).get(`/public/content/${res.body.item.id}`).set(agency.auth)).body.code).toBe('api_key_required');
    expect((await api(server).get(`/content/${res.body.item.id}`).set(full)).body.code).toBe('session_required');
    expect((await api(server).post(`/characters/${character}/content/${res.body.item.id}/approve`).set(full)).body.code).toBe('session_required');
    const foreign = await api(server).get(`/public/content/${(await generate(alice, { character_id: aliceCharacter })).body.item.id}`).set(full);
    expect(foreign.status).toBe(404);
    const foreignCharacter = await api(server).post('/public/generate').set(full).send({ character_id: aliceCharacter, platform: 'instagram', prompt: 'x' });
    expect(foreignCharacter.status).toBe(404);
  });
});
