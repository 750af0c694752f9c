import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, grantCredits, loginAdmin, missingId, registerUser, root, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';

const ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50' };

type Body = Record<string, any>;

/**
 * The dashboard's lists (GET /jobs, GET /content, GET /characters?niche=&q=), what a finished job
 * made (signed URLs), the character's effective timezone, and 402/403 answers that say what to do.
 */
describe('lists, job outputs and actionable refusals', () => {
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let admin: { Authorization: string };
  let alice: TestUser;
  let bob: TestUser;
  let mia: string;
  let leo: string;
  /** Alice's items: [single on instagram for mia, carousel on x for leo, story on tiktok for mia]. */
  const items: Body[] = [];
  const jobs: Body[] = [];

  const character = async (user: TestUser, body: Record<string, unknown>): Promise<Body> => {
    const res = await api(server).post('/characters').set(user.auth).send(body);
    expect(res.status).toBe(201);
    return res.body.character;
  };
  const generate = async (user: TestUser, body: Record<string, unknown>): Promise<Body> => {
    const res = await api(server).post('/content/generate').set(user.auth).send({ prompt: 'Sunrise run by the river', ...body });
    expect(res.status).toBe(201);
    return res.body;
  };
  const jobOf = async (user: TestUser, id: string): Promise<Body> => (await api(server).get(`/jobs/${id}`).set(user.auth)).body.job;
  const finished = (user: TestUser, id: string): Promise<Body> =>
    waitFor(async () => {
      const job = await jobOf(user, id);
      return ['completed', 'failed'].includes(job?.status) ? job : undefined;
    }, 60_000, `job ${id} to finish`);
  const list = (user: TestUser, path: string, query: Record<string, string | number> = {}) => api(server).get(path).query(query).set(user.auth);
  const ids = (rows: Body[]) => rows.map((r) => r.id);

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, ENV);
    if (E2E_MODE === 'services') worker = await startWorker(backing);
    admin = await loginAdmin(server);
    alice = await registerUser(server);
    bob = await registerUser(server);
    await grantCredits(server, admin, alice.workspace.id, 500);
    mia = (await character(alice, { name: 'Mia 100%_off', niche: 'Travel' })).id;
    leo = (await character(alice, { name: 'Leo', niche: 'fitness' })).id;
    for (const [characterId, type, platform] of [[mia, 'single', 'instagram'], [leo, 'carousel', 'x'], [mia, 'story', 'tiktok']]) {
      const made = await generate(alice, { character_id: characterId, type, platform });
      items.push(made.item);
      jobs.push(made.job);
    }
    for (const job of jobs) expect((await finished(alice, job.id)).status).toBe('completed');
  }, 180_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), worker?.stop()]);
    await backing?.cleanup();
  });

  describe('GET /jobs', () => {
    it('pages the workspace’s jobs newest first, in the house’s list shape', async () => {
      const all = await list(alice, '/jobs');
      expect(all.status).toBe(200);
      expect(Object.keys(all.body).sort()).toEqual(['jobs', 'page', 'page_size', 'total']);
      expect(all.body).toMatchObject({ page: 1, page_size: 20, total: 3 });
      expect(ids(all.body.jobs)).toEqual(ids(jobs).reverse());

      const second = await list(alice, '/jobs', { page: 2, page_size: 2 });
      expect(second.body).toMatchObject({ page: 2, page_size: 2, total: 3 });
      expect(ids(second.body.jobs)).toEqual([jobs[0].id]);
      const past = await list(alice, '/jobs', { page: 9, page_size: 2 });
      expect(past.body).toMatchObject({ jobs: [], total: 3 });
    });

    it('filters by status, type and character; another workspace sees none of them', async () => {
      expect((await list(alice, '/jobs', { status: 'completed' })).body.total).toBe(3);
      expect((await list(alice, '/jobs', { status: 'pending,running,failed' })).body).toMatchObject({ jobs: [], total: 0 });
      expect((await list(alice, '/jobs', { type: 'generate_image' })).body.total).toBe(3);
      expect((await list(alice, '/jobs', { job_type: 'train_lora' })).body.total).toBe(0);
      expect(ids((await list(alice, '/jobs', { character_id: leo })).body.jobs)).toEqual([jobs[1].id]);
      expect(ids((await list(alice, '/jobs', { character_id: mia, status: 'completed' })).body.jobs)).toEqual([jobs[2].id, jobs[0].id]);
      expect((await list(bob, '/jobs')).body).toMatchObject({ jobs: [], total: 0 });
      expect((await list(bob, '/jobs', { character_id: mia })).body).toMatchObject({ jobs: [], total: 0 });
    });

    it.each([
      [{ status: 'done' }, 'status'],
      [{ status: 'completed,' }, 'status'],
      [{ type: 'make_coffee' }, 'type'],
      [{ type: 'DROP TABLE' }, 'type'],
      [{ type: 'generate_image', job_type: 'train_lora' }, 'type'],
      [{ character_id: 'char_1' }, 'character_id'],
      [{ page: 0 }, 'page'],
      [{ page_size: 101 }, 'page_size'],
    ])('answers 400 for %j', async (query, field) => {
      const res = await list(alice, '/jobs', query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: Body) => d.field)).toContain(field);
    });

    it('a finished job’s result carries signed URLs of what it made, which serve the files', async () => {
      const job = await jobOf(alice, jobs[1].id);
      const item = (await api(server).get(`/content/${items[1].id}`).set(alice.auth)).body.item;
      expect(item.media.length).toBeGreaterThan(1);
      expect(job.result).toMatchObject({ content_id: items[1].id, media_count: item.media.length });
      expect(job.result.outputs).toHaveLength(item.media.length);
      for (const [i, output] of job.result.outputs.entries()) {
        expect(output).toEqual({ kind: 'image', url: expect.stringMatching(/^http/) });
        expect(new URL(output.url).pathname).toBe(new URL(item.media[i].url).pathname);
        const file = await root(server).get(`${new URL(output.url).pathname}${new URL(output.url).search}`);
        expect([file.status, file.headers['content-type']]).toEqual([200, 'image/png']);
      }
      expect(JSON.stringify(job)).not.toMatch(/"key"/);
      const listed = (await list(alice, '/jobs', { character_id: leo })).body.jobs[0];
      expect(listed.result.outputs.map((o: Body) => new URL(o.url).pathname)).toEqual(job.result.outputs.map((o: Body) => new URL(o.url).pathname));
    });
  });

  describe('GET /content', () => {
    it('lists every status newest first, paged; the queue stays as it was', async () => {
      const all = await list(alice, '/content');
      expect(all.status).toBe(200);
      expect(Object.keys(all.body).sort()).toEqual(['items', 'page', 'page_size', 'total']);
      expect(all.body.total).toBe(3);
      expect(ids(all.body.items)).toEqual(ids(items).reverse());
      expect(ids((await list(alice, '/content', { page: 2, page_size: 1 })).body.items)).toEqual([items[1].id]);
      const queue = await list(alice, '/content/queue');
      expect(queue.status).toBe(200);
      expect(ids(queue.body.items).sort()).toEqual(ids(items).sort());
    });

    it('filters by status, type, platform (any spelling) and character', async () => {
      const approve = await api(server).post(`/characters/${mia}/content/${items[0].id}/approve`).set(alice.auth);
      expect(approve.status).toBe(200);
      expect(ids((await list(alice, '/content', { status: 'approved' })).body.items)).toEqual([items[0].id]);
      expect(ids((await list(alice, '/content', { status: 'ready,approved' })).body.items)).toEqual(ids(items).reverse());
      expect((await list(alice, '/content', { status: 'published' })).body.total).toBe(0);
      expect(ids((await list(alice, '/content', { type: 'story' })).body.items)).toEqual([items[2].id]);
      expect(ids((await list(alice, '/content', { content_type: 'carousel' })).body.items)).toEqual([items[1].id]);
      expect(ids((await list(alice, '/content', { platform: 'twitter' })).body.items)).toEqual([items[1].id]);
      expect(ids((await list(alice, '/content', { platform: 'microblog' })).body.items)).toEqual([items[1].id]);
      expect(ids((await list(alice, '/content', { platform: 'short_video' })).body.items)).toEqual([items[2].id]);
      expect(ids((await list(alice, '/content', { character_id: mia })).body.items)).toEqual([items[2].id, items[0].id]);
      expect(ids((await list(alice, '/content', { character_id: mia, type: 'single', platform: 'instagram', status: 'approved' })).body.items)).toEqual([items[0].id]);
    });

    it('keeps workspaces apart: nothing of another workspace, and its character is a 404', async () => {
      expect((await list(bob, '/content')).body).toMatchObject({ items: [], total: 0 });
      const foreign = await list(bob, '/content', { character_id: mia });
      expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
      expect((await list(alice, '/content', { character_id: missingId('char') })).status).toBe(404);
    });

    it.each([
      [{ status: 'done' }, 'status'],
      [{ type: 'poster' }, 'type'],
      [{ content_type: 'poster' }, 'content_type'],
      [{ type: 'single', content_type: 'story' }, 'type'],
      [{ platform: 'facebook' }, 'platform'],
      [{ character_id: 'mia' }, 'character_id'],
      [{ page: '1e3' }, 'page'],
      [{ page_size: 0 }, 'page_size'],
    ])('answers 400 for %j', async (query, field) => {
      const res = await list(alice, '/content', query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: Body) => d.field)).toContain(field);
    });
  });

  describe('GET /characters?niche=&q=', () => {
    it('filters by niche, whole and in any case, and pages the result', async () => {
      const travel = await list(alice, '/characters', { niche: 'travel' });
      expect(travel.status).toBe(200);
      expect(travel.body).toMatchObject({ page: 1, page_size: 20, total: 1 });
      expect(ids(travel.body.characters)).toEqual([mia]);
      expect(ids((await list(alice, '/characters', { niche: 'FITNESS' })).body.characters)).toEqual([leo]);
      expect((await list(alice, '/characters', { niche: 'fit' })).body.total).toBe(0);
      expect((await list(alice, '/characters', { niche: 'travel', page: 2 })).body).toMatchObject({ characters: [], total: 1 });
    });

    it('searches names in any case, taking % and _ literally', async () => {
      expect(ids((await list(alice, '/characters', { q: 'mIA' })).body.characters)).toEqual([mia]);
      expect(ids((await list(alice, '/characters', { q: '100%_' })).body.characters)).toEqual([mia]);
      expect((await list(alice, '/characters', { q: '%' })).body.characters.map((c: Body) => c.name)).toEqual(['Mia 100%_off']);
      expect((await list(alice, '/characters', { q: '_' })).body.total).toBe(1);
      expect((await list(alice, '/characters', { q: 'L_o' })).body.total).toBe(0);
      expect((await list(alice, '/characters', { q: '\\' })).body.total).toBe(0);
      expect(ids((await list(alice, '/characters', { q: 'e', niche: 'fitness' })).body.characters)).toEqual([leo]);
      expect((await list(bob, '/characters', { q: 'mia' })).body).toMatchObject({ characters: [], total: 0 });
    });

    it.each([[{ q: '' }, 'q'], [{ q: 'x'.repeat(81) }, 'q'], [{ niche: '   ' }, 'niche'], [{ page: -1 }, 'page']])('answers 400 for %j', async (query, field) => {
      const res = await list(alice, '/characters', query);
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: Body) => d.field)).toContain(field);
    });
  });

  describe('a character’s timezone', () => {
    it('shows the zone its posts use and where it comes from: set, location or default, in one and in the list', async () => {
      const placed = await character(bob, { name: 'Ana', niche: 'food', identity: { location: 'Lisbon, Portugal' } });
      expect(placed).toMatchObject({ timezone: 'Europe/Lisbon', timezone_source: 'location' });
      const plain = await character(bob, { name: 'Bo', niche: 'food' });
      expect(plain).toMatchObject({ timezone: 'America/New_York', timezone_source: 'default' });
      const set = await api(server).patch(`/characters/${plain.id}`).set(bob.auth).send({ timezone: 'Asia/Tokyo' });
      expect(set.body.character).toMatchObject({ timezone: 'Asia/Tokyo', timezone_source: 'set' });
      const listed = Object.fromEntries((await list(bob, '/characters')).body.characters.map((c: Body) => [c.id, [c.timezone, c.timezone_source]]));
      expect(listed).toEqual({ [placed.id]: ['Europe/Lisbon', 'location'], [plain.id]: ['Asia/Tokyo', 'set'] });
      const cleared = await api(server).patch(`/characters/${plain.id}`).set(bob.auth).send({ timezone: null });
      expect(cleared.body.character).toMatchObject({ timezone: 'America/New_York', timezone_source: 'default' });
    });
  });

  describe('refusals that say what to do', () => {
    it('402 insufficient_credits: needed, held, short by, and where credits come from', async () => {
      const carol = await registerUser(server);
      const c = (await character(carol, { name: 'Cy', niche: 'art' })).id;
      await grantCredits(server, admin, carol.workspace.id, -49);
      const res = await api(server).post('/content/generate').set(carol.auth).send({ character_id: c, platform: 'instagram', type: 'single', prompt: 'x' });
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({
        code: 'insufficient_credits',
        message: expect.stringMatching(/^This needs 3 credits; the workspace has 1 \(2 short\)\. See the balance at GET \/api\/v1\/billing\/credits; an owner or admin buys a credit pack/),
        details: { required: 3, balance: 1, shortfall: 2, credits_url: '/api/v1/billing/credits', how_to: expect.any(String) },
      });
    });

    it('403 plan_required: the plans it needs, the plan the workspace is on, and who changes it', async () => {
      const res = await api(server).get(`/characters/${mia}/lora`).set(alice.auth);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: 'plan_required',
        message: expect.stringMatching(/^This needs the pro or agency plan; this workspace is on starter\. An owner or admin changes the plan/),
        details: { plans: ['pro', 'agency'], required: ['pro', 'agency'], current_plan: 'starter', how_to: expect.stringContaining('/api/v1/billing/checkout') },
      });
      const keys = await api(server).post('/api-keys').set(alice.auth).send({ name: 'k', scopes: ['credits:read'] });
      expect(keys.body).toMatchObject({ code: 'plan_required', details: { required: ['agency'], current_plan: 'starter' } });
    });

    it('403 character_limit_reached names the plan that allows more', async () => {
      const dana = await registerUser(server);
      for (const name of ['A', 'B', 'C']) await character(dana, { name, niche: 'x' });
      const res = await api(server).post('/characters').set(dana.auth).send({ name: 'D', niche: 'x' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: 'character_limit_reached',
        message: expect.stringContaining('move to the pro plan (15 characters)'),
        details: { plan: 'starter', limit: 3, count: 3, upgrade_plan: 'pro' },
      });
    });
  });
});
