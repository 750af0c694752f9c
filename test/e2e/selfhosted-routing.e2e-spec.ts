import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import pg from 'pg';
import sharp from 'sharp';
import { mediaBytes } from '../helpers/media.js';
import { api, grantCredits, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { describeOnServices, E2E_MODE } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { FakeA1111Server } from '../fakes/a1111-server.js';
import { FakeComfyUiServer } from '../fakes/comfyui-server.js';

type Body = Record<string, any>;
const SERVICES = E2E_MODE === 'services';
const API_KEY = 'gpu-operator:s3cret-basic-pass-8d1f';
const ENV = {
  RUN_JOBS_IN_API: 'true', AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50',
  // Windows in seconds, not minutes, so the circuit and the budget can be watched.
  SELFHOSTED_BUDGET_MS: '3000', SELFHOSTED_CIRCUIT_RESET_MS: '1500', SELFHOSTED_HEALTH_INTERVAL_MS: '0', SELFHOSTED_LEASE_MS: '5000',
};

/** The documented bucket: SHA-256 of the job id, first four bytes big-endian, mod 100. */
const bucketOf = (jobId: string): number => createHash('sha256').update(jobId).digest().readUInt32BE(0) % 100;

function driver(server: () => TestServer, admin: () => { Authorization: string }, user: () => TestUser) {
  const as = (auth: { Authorization: string }) => ({
    get: (path: string) => api(server()).get(path).set(auth),
    post: (path: string, body?: object) => api(server()).post(path).set(auth).send(body),
    put: (path: string, body?: object) => api(server()).put(path).set(auth).send(body),
    patch: (path: string, body?: object) => api(server()).patch(path).set(auth).send(body),
    delete: (path: string) => api(server()).delete(path).set(auth),
  });
  const d = {
    admin: () => as(admin()),
    user: () => as(user().auth),
    async addEndpoint(body: Body): Promise<Body> {
      const res = await d.admin().post('/admin/selfhosted/endpoints', { name: 'gpu', kind: 'a1111', max_concurrency: 4, ...body });
      expect(res.status).toBe(201);
      return res.body.endpoint;
    },
    async route(enabled: boolean, pct: number): Promise<void> {
      expect((await d.admin().put('/admin/selfhosted/routing', { enabled, routing_percentage: pct })).status).toBe(200);
    },
    async overview(): Promise<Body> {
      const res = await d.admin().get('/admin/selfhosted');
      expect(res.status).toBe(200);
      return res.body;
    },
    async endpoint(id: string): Promise<Body> {
      return (await d.overview()).endpoints.find((e: Body) => e.id === id);
    },
    async character(): Promise<string> {
      const res = await d.user().post('/characters', { name: 'Mia', niche: 'travel' });
      expect(res.status).toBe(201);
      return res.body.character.id;
    },
    /** Orders n image jobs, `parallel` requests at a time; answers their job ids. */
    async generate(character: string, n: number, parallel = 20): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < n; i += parallel) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(parallel, n - i) }, () => d.user().post('/content/generate', { character_id: character, platform: 'instagram', prompt: 'Sunrise run by the river' })),
        );
        for (const res of batch) {
          expect(res.status).toBe(201);
          ids.push(res.body.job.id);
        }
      }
      return ids;
    },
    async job(id: string): Promise<Body> {
      return waitFor(async () => {
        const job = (await d.user().get(`/jobs/${id}`)).body.job as Body | undefined;
        return job && ['completed', 'failed'].includes(job.status) ? job : undefined;
      }, 180_000, `job ${id}`);
    },
    /** The ledger rows of one content item: a generation's charge is recorded against its item. */
    async ledgerOf(contentId: string): Promise<Array<[string, number]>> {
      const entries = (await d.user().get('/billing/ledger?page_size=100')).body.entries as Body[];
      return entries.filter((e) => e.ref_id === contentId).map((e) => [e.reason, e.amount]);
    },
  };
  return d;
}

describe('Self-hosted GPU routing', () => {
  let backing: Backing;
  let server: TestServer;
  let admin: { Authorization: string };
  let user: TestUser;
  let character: string;
  const gpu = new FakeA1111Server(API_KEY);
  const comfy = new FakeComfyUiServer();
  const d = driver(() => server, () => admin, () => user);

  beforeAll(async () => {
    await Promise.all([gpu.start(), comfy.start()]);
    backing = await createBacking();
    server = await startServer(backing, ENV);
    admin = await loginAdmin(server);
    user = await registerUser(server);
    await setPlan(server, admin, user.workspace.id, 'agency');
    await grantCredits(server, admin, user.workspace.id, 100_000);
    character = await d.character();
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await Promise.all([gpu.stop(), comfy.stop()]);
    await backing?.cleanup();
  });

  describe('administration', () => {
    it('is for platform admins only: 401 without a session, 403 forbidden for a user, 401 session_required for an API key', async () => {
      expect((await api(server).get('/admin/selfhosted')).status).toBe(401);
      const refused = await d.user().get('/admin/selfhosted');
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('forbidden');
      for (const res of [
        await d.user().put('/admin/selfhosted/routing', { enabled: true, routing_percentage: 100 }),
        await d.user().post('/admin/selfhosted/refresh'),
        await d.user().post('/admin/selfhosted/endpoints', { name: 'x', url: gpu.url, kind: 'a1111' }),
        await d.user().patch(`/admin/selfhosted/endpoints/${missingId('ep')}`, { name: 'x' }),
        await d.user().delete(`/admin/selfhosted/endpoints/${missingId('ep')}`),
      ]) expect(res.status).toBe(403);
      const key = await d.user().post('/api-keys', { name: 'agency', scopes: ['content:read'] });
      expect(key.status).toBe(201);
      const viaKey = await api(server).get('/admin/selfhosted').set({ Authorization: `Bearer ${key.body.key}` });
      expect(viaKey.status).toBe(401);
      expect(viaKey.body.code).toBe('session_required');
    });

    it('refuses bad URLs, link-local and metadata addresses, and out-of-range settings with 400', async () => {
      const refused = async (body: Body) => {
        const res = await d.admin().post('/admin/selfhosted/endpoints', { name: 'gpu', kind: 'a1111', url: gpu.url, ...body });
        expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
        return res.body;
      };
      for (const url of ['ftp://10.0.0.5/', 'not a url', 'http://169.254.169.254/latest', 'http://[fe80::1]:7860', 'http://metadata.google.internal/', 'http://[::ffff:169.254.169.254]/', 'http://user:pw@10.0.0.5:7860', 'http://0.0.0.0:7860',
        // Every IPv6 spelling that carries the metadata address: NAT64, IPv4-compatible, IPv4-translated, 6to4.
        'http://[64:ff9b::169.254.169.254]/', 'http://[::169.254.169.254]/', 'http://[::ffff:0:169.254.169.254]/', 'http://[2002:a9fe:a9fe::]/']) {
        const error = await refused({ url });
        expect(JSON.stringify(error)).toContain('url');
      }
      await refused({ max_concurrency: 0 });
      await refused({ max_concurrency: 65 });
      await refused({ max_concurrency: 2.5 });
      await refused({ capabilities: [] });
      await refused({ capabilities: ['text_to_video'] });
      await refused({ kind: 'triton' });
      await refused({ workflow: { '1': { class_type: 'KSampler' } } });
      await refused({ name: '' });
      await refused({ unexpected: true });
      expect((await d.overview()).endpoints).toEqual([]);
      for (const body of [{ enabled: true, routing_percentage: 101 }, { enabled: true, routing_percentage: -1 }, { enabled: 'yes', routing_percentage: 5 }, { enabled: true }]) {
        expect((await d.admin().put('/admin/selfhosted/routing', body)).status).toBe(400);
      }
    });

    it('stores an endpoint with its key sealed, never answers the key, and changes and removes it', async () => {
      const created = await d.admin().post('/admin/selfhosted/endpoints', { name: 'rack-1', url: `${gpu.url}/`, kind: 'a1111', max_concurrency: 2, api_key: API_KEY });
      expect(created.status).toBe(201);
      const ep = created.body.endpoint;
      expect(ep).toMatchObject({
        name: 'rack-1', url: gpu.url, kind: 'a1111', status: 'active', max_concurrency: 2, capabilities: ['text_to_image', 'image_to_image'],
        api_key_set: true, health: 'unknown', current_load: 0, consecutive_failures: 0, circuit: 'closed', circuit_opened_at: null,
      });
      expect(ep.id).toMatch(/^ep_/);
      expect(JSON.stringify(created.body)).not.toContain('s3cret');
      expect(JSON.stringify(await d.overview())).not.toContain('s3cret');

      const changed = await d.admin().patch(`/admin/selfhosted/endpoints/${ep.id}`, { max_concurrency: 3, status: 'disabled' });
      expect(changed.status).toBe(200);
      expect(changed.body.endpoint).toMatchObject({ max_concurrency: 3, status: 'disabled', api_key_set: true });
      expect((await d.admin().patch(`/admin/selfhosted/endpoints/${ep.id}`, { max_concurrency: 70 })).status).toBe(400);
      expect((await d.admin().patch(`/admin/selfhosted/endpoints/${ep.id}`, { name: null })).status).toBe(400);
      expect((await d.admin().patch(`/admin/selfhosted/endpoints/${ep.id}`, { url: 'http://169.254.169.254' })).status).toBe(400);
      const cleared = await d.admin().patch(`/admin/selfhosted/endpoints/${ep.id}`, { api_key: null });
      expect(cleared.body.endpoint.api_key_set).toBe(false);

      expect((await d.admin().patch(`/admin/selfhosted/endpoints/${missingId('ep')}`, { name: 'x' })).status).toBe(404);
      expect((await d.admin().patch('/admin/selfhosted/endpoints/not-an-id', { name: 'x' })).status).toBe(404);
      expect((await d.admin().delete(`/admin/selfhosted/endpoints/${ep.id}`)).status).toBe(204);
      expect((await d.admin().delete(`/admin/selfhosted/endpoints/${ep.id}`)).status).toBe(404);
      expect((await d.overview()).endpoints).toEqual([]);
    });

    it('refresh probes every endpoint: healthy, or unhealthy with the reason', async () => {
      const a = await d.addEndpoint({ name: 'a1111', url: gpu.url, api_key: API_KEY });
      const c = await d.addEndpoint({ name: 'comfy', url: comfy.url, kind: 'comfyui', capabilities: ['text_to_image'] });
      comfy.mode = { healthDown: '503' };
      const res = await d.admin().post('/admin/selfhosted/refresh');
      expect(res.status).toBe(200);
      const byId = Object.fromEntries(res.body.endpoints.map((e: Body) => [e.id, e]));
      expect(byId[a.id]).toMatchObject({ health: 'healthy', availability: 'healthy', probe_health: 'healthy', circuit: 'closed' });
      expect(byId[a.id].last_checked_at).not.toBeNull();
      expect(byId[c.id]).toMatchObject({ health: 'unhealthy', availability: 'unavailable', probe_health: 'unhealthy' });
      expect(byId[c.id].last_error).toContain('503');
      comfy.mode = {};
      await d.admin().delete(`/admin/selfhosted/endpoints/${a.id}`);
      await d.admin().delete(`/admin/selfhosted/endpoints/${c.id}`);
    });
  });

  describe('routing image jobs', () => {
    let endpoint: Body;
    beforeAll(async () => {
      endpoint = await d.addEndpoint({ name: 'rack', url: gpu.url, api_key: API_KEY, max_concurrency: 8 });
    });

    it('0 % sends nothing self-hosted', async () => {
      await d.route(true, 0);
      gpu.resetStats();
      const jobs = await Promise.all((await d.generate(character, 10)).map((id) => d.job(id)));
      for (const job of jobs) expect(job.result).toMatchObject({ route: 'local', provider: 'local', endpoint_id: null, fallback_reason: null });
      expect(gpu.generations).toBe(0);
    });

    it('100 % draws every image job on the healthy endpoint, with its key, and the images are its', async () => {
      await d.route(true, 100);
      gpu.resetStats();
      const ids = await d.generate(character, 10);
      const jobs = await Promise.all(ids.map((id) => d.job(id)));
      for (const job of jobs) expect(job.result).toMatchObject({ route: 'selfhosted', provider: `selfhosted:${endpoint.id}`, endpoint_id: endpoint.id, fallback_reason: null });
      expect(gpu.generations).toBe(10);
      expect(gpu.requests.filter((r) => r.path === '/sdapi/v1/txt2img').every((r) => r.authorization === `Basic ${Buffer.from(API_KEY).toString('base64')}`)).toBe(true);
      // One ledger row per job: the charge taken when ordered, nothing more.
      expect(await d.ledgerOf(jobs[0].content_id)).toHaveLength(1);
      // The item's image is the one the endpoint drew (the A1111 fake paints solid orange).
      const item = (await d.user().get(`/content/${jobs[0].content_id}`)).body.item;
      const { data } = await sharp(await mediaBytes(server, item.media[0].url)).raw().toBuffer({ resolveWithObject: true });
      expect([...data.subarray(0, 3)]).toEqual([240, 140, 30]);
      const stats = (await d.overview()).stats;
      expect(stats.selfhosted).toBeGreaterThanOrEqual(10);
    });

    const N = SERVICES ? 1000 : 100;
    it(`30 % over ${N} jobs routes exactly the jobs whose bucket is under 30`, async () => {
      await d.route(true, 30);
      gpu.resetStats();
      const ids = await d.generate(character, N, 25);
      const routes = await resultsOf(ids);
      const expected = ids.filter((id) => bucketOf(id) < 30);
      const selfhosted = ids.filter((id) => routes.get(id)?.route === 'selfhosted');
      expect(selfhosted.sort()).toEqual(expected.sort());
      expect(gpu.generations).toBe(expected.length);
      expect([...routes.values()].filter((r) => r.job_status !== 'completed')).toEqual([]);
    }, 300_000);

    /** Every job's status and route, read from the rows when the database is reachable, else one by one. */
    async function resultsOf(ids: string[]): Promise<Map<string, Body>> {
      if (!SERVICES) {
        return new Map(await Promise.all(ids.map(async (id): Promise<[string, Body]> => {
          const job = await d.job(id);
          return [id, { ...job.result, job_status: job.status, error: job.error }];
        })));
      }
      const db = new pg.Client({ connectionString: backing.env.DATABASE_URL });
      await db.connect();
      try {
        const rows = await waitFor(async () => {
          const r = await db.query(`SELECT id, status, result FROM jobs WHERE id = ANY($1)`, [ids]);
          return r.rows.every((row) => ['completed', 'failed'].includes(row.status)) && r.rows.length === ids.length ? r.rows : undefined;
        }, 240_000, `${ids.length} jobs to finish`);
        return new Map(rows.map((row) => [row.id, { ...row.result, job_status: row.status }]));
      } finally {
        await db.end();
      }
    }

    it('killed mid-run: its circuit opens after 3 failures, every job completes on the cloud once charged, and one trial closes it when it is back', async () => {
      await d.route(true, 100);
      const port = Number(new URL(gpu.url).port);
      gpu.mode = { slowMs: 100 };
      gpu.resetStats();
      // One job after another, so the endpoint is killed while it holds one.
      const ordering = d.generate(character, 12, 1);
      await waitFor(async () => gpu.generations >= 2 && gpu.held > 0, 20_000, 'the endpoint to be drawing');
      await gpu.stop();
      const jobs = await Promise.all((await ordering).map((id) => d.job(id)));
      expect(jobs.filter((j) => j.status !== 'completed')).toEqual([]);
      const fallbacks = jobs.filter((j) => j.result.route !== 'selfhosted').map((j) => j.result.fallback_reason);
      expect(fallbacks.length).toBeGreaterThan(0);
      expect(fallbacks.every((r) => r === 'endpoint_failed' || r === 'no_eligible_endpoint')).toBe(true);
      expect(fallbacks).toContain('no_eligible_endpoint');
      for (const job of jobs) expect(await d.ledgerOf(job.content_id)).toHaveLength(1);
      const open = await d.endpoint(endpoint.id);
      // Open after 3 failures; on a slow machine a trial may already have failed against the dead
      // endpoint (each failed trial reopens it for a new window and adds one), so at least 3.
      expect(open.circuit).toBe('open');
      // Health and circuit read as one: an open circuit is never reported healthy.
      expect(open).toMatchObject({ health: 'unhealthy', availability: 'unavailable' });
      expect(open.consecutive_failures).toBeGreaterThanOrEqual(3);
      expect(Date.parse(open.circuit_retry_at) - Date.parse(open.circuit_opened_at)).toBe(1500);

      gpu.mode = {};
      await gpu.start(port);
      gpu.resetStats();
      // While it is open nothing is tried there (the no_eligible_endpoint fallbacks above); after the window, the next job is the trial.
      await waitFor(async () => Date.now() >= Date.parse(open.circuit_retry_at), 5_000, 'the reset window');
      const [trial] = await d.generate(character, 1);
      expect((await d.job(trial)).result).toMatchObject({ route: 'selfhosted', endpoint_id: endpoint.id });
      expect(await d.endpoint(endpoint.id)).toMatchObject({ circuit: 'closed', consecutive_failures: 0, circuit_opened_at: null });
      expect(gpu.generations).toBe(1);
    }, 120_000);

    it('a hung endpoint: the job falls back before the budget ends and the hung request is aborted', async () => {
      gpu.mode = { hang: true };
      gpu.resetStats();
      const [id] = await d.generate(character, 1);
      const job = await d.job(id);
      expect({ job, ep: await d.endpoint(endpoint.id) }).toMatchObject({ job: { status: 'completed', result: { route: 'local', provider: 'local', fallback_reason: 'timeout' } } });
      await waitFor(async () => gpu.abortedRequests >= 1, 5_000, 'the hung request to be closed');
      // The budget (3 s here) bounds the self-hosted attempt: the GPU fake itself saw its request
      // held no shorter than the budget and closed soon after it, whatever else the job then did.
      expect(gpu.abortedAfterMs).toHaveLength(1);
      expect(gpu.abortedAfterMs[0]).toBeGreaterThanOrEqual(3000 - 50);
      expect(gpu.abortedAfterMs[0]).toBeLessThan(3000 + 1_500);
      expect(await d.ledgerOf(job.content_id)).toHaveLength(1);
      gpu.mode = {};
    }, 60_000);

    it('a 307 to another address is a failed attempt, not followed: the job falls back to the cloud', async () => {
      // Stands for the metadata service the redirect points at: it must never be asked anything.
      const elsewhere = new FakeA1111Server();
      await elsewhere.start();
      try {
        await d.route(true, 100);
        gpu.mode = { redirectTo: `${elsewhere.url}/sdapi/v1/txt2img` };
        gpu.resetStats();
        const [id] = await d.generate(character, 1);
        const job = await d.job(id);
        expect(job).toMatchObject({ status: 'completed', result: { route: 'local', provider: 'local', fallback_reason: 'endpoint_failed' } });
        expect(gpu.requests.map((r) => r.path)).toContain('/sdapi/v1/txt2img');
        expect(elsewhere.requests).toEqual([]);
        expect((await d.endpoint(endpoint.id)).last_error).toMatch(/307/);
      } finally {
        gpu.mode = {};
        await elsewhere.stop();
      }
    }, 60_000);

    it('never writes the key to the log', () => {
      expect(server.output.join('\n')).not.toContain('s3cret');
    });
  });
});

/**
 * Two worker processes share one endpoint limit: with max_concurrency 2 the fake never holds more
 * than 2 requests at once over 500 jobs, while each worker runs 4 jobs at once. Always on
 * PostgreSQL and Redis, whatever E2E_MODE says: the limit lives in Redis.
 */
describeOnServices('Self-hosted GPU routing across two workers', () => {
  const JOBS = 500;
  let backing: Backing;
  let server: TestServer;
  let workers: RunningProcess[] = [];
  let admin: { Authorization: string };
  let user: TestUser;
  let db: pg.Client;
  const gpu = new FakeA1111Server();
  const d = driver(() => server, () => admin, () => user);

  beforeAll(async () => {
    await gpu.start();
    gpu.mode = { slowMs: 15 };
    backing = await createBacking({ services: true });
    const env = { ...ENV, RUN_JOBS_IN_API: 'false' };
    server = await startServer(backing, env);
    workers = await Promise.all([startWorker(backing, { ...env, JOB_CONCURRENCY: '4' }), startWorker(backing, { ...env, JOB_CONCURRENCY: '4' })]);
    db = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    await db.connect();
    admin = await loginAdmin(server);
    user = await registerUser(server);
    await setPlan(server, admin, user.workspace.id, 'agency');
    await grantCredits(server, admin, user.workspace.id, 100_000);
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await Promise.all([server?.stop(), ...workers.map((w) => w.stop())]);
    await gpu.stop();
    await backing?.cleanup();
  });

  it(`holds at most max_concurrency requests at the endpoint over ${JOBS} jobs, and every job completes`, async () => {
    await d.addEndpoint({ name: 'shared', url: gpu.url, max_concurrency: 2 });
    await d.route(true, 100);
    const character = await d.character();
    gpu.resetStats();
    const ids = await d.generate(character, JOBS, 25);
    const rows = await waitFor(async () => {
      const r = await db.query(`SELECT id, status, result FROM jobs WHERE id = ANY($1)`, [ids]);
      return r.rows.length === ids.length && r.rows.every((row) => ['completed', 'failed'].includes(row.status)) ? r.rows : undefined;
    }, 240_000, `${JOBS} jobs to finish`);
    expect(rows.filter((r) => r.status !== 'completed')).toEqual([]);
    const selfhosted = rows.filter((r) => r.result.route === 'selfhosted').length;
    const full = rows.filter((r) => r.result.fallback_reason === 'no_eligible_endpoint').length;
    expect(selfhosted + full).toBe(JOBS);
    expect(gpu.generations).toBe(selfhosted);
    // The limit held, and it was reached: eight jobs at a time competed for two slots.
    expect(gpu.maxHeld).toBe(2);
    expect(full).toBeGreaterThan(0);
    const stats = (await d.overview()).stats;
    expect(stats).toMatchObject({ selfhosted, fallbacks: full, by_reason: { no_eligible_endpoint: full } });
  }, 300_000);
});
