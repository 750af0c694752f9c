import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { api, loginAdmin, registerUser, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';
import { createCharacter, startFaceEmbeddingJob } from '../fakes/queue-e2e-jobs.js';

const METRICS_TOKEN = 'e2e-metrics-token-0123456789';
const scraper = { Authorization: `Bearer ${METRICS_TOKEN}` };

/** The sample lines of a metric family in a Prometheus text exposition. */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`));
}

/** The `ps_board` cookie a Set-Cookie header list carries, as a Cookie header value. */
function boardCookie(setCookie: string[] | string | undefined): string {
  const found = [setCookie ?? []].flat().find((c) => c.startsWith('ps_board='));
  if (!found) throw new Error(`no ps_board cookie in ${JSON.stringify(setCookie)}`);
  return found.split(';')[0];
}

describe('operator views', () => {
  let backing: Backing;
  let server: TestServer;
  let admin: { Authorization: string };
  let user: TestUser;

  beforeAll(async () => {
    backing = await createBacking();
    // The API runs the jobs itself, so that their durations are in the metrics it serves.
    server = await startServer(backing, { METRICS_TOKEN, RUN_JOBS_IN_API: 'true' });
    admin = await loginAdmin(server);
    user = await registerUser(server);
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  describe('GET /metrics', () => {
    it('refuses a missing or wrong token with 401 unauthorized, a session token included', async () => {
      for (const headers of [{}, { Authorization: 'Bearer wrong-token-0123456789' }, admin, { Authorization: METRICS_TOKEN }]) {
        const res = await api(server).get('/metrics').set(headers);
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('unauthorized');
      }
    });

    it('answers the Prometheus text format, requests labelled by route pattern, never by URL', async () => {
      expect((await api(server).get('/health')).status).toBe(200);
      expect((await api(server).get('/characters/char_01ARZ3NDEKTSV4RRFFQ69G5FAV').set(user.auth)).status).toBe(404);
      expect((await api(server).get('/no-such-route/abc123')).status).toBe(404);
      const res = await api(server).get('/metrics').set(scraper);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const counts = samples(res.text, 'persona_http_request_duration_seconds_count');
      expect(counts).toEqual(expect.arrayContaining([
        expect.stringMatching(/^persona_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/health",status="200"\} [1-9]/),
        expect.stringMatching(/\{method="GET",route="\/api\/v1\/characters\/:id",status="404"\} 1$/),
        expect.stringMatching(/\{method="GET",route="unmatched",status="404"\} [1-9]/),
      ]));
      expect(res.text).not.toMatch(/char_01ARZ3NDEKTSV4RRFFQ69G5FAV|no-such-route/);
      expect(res.text).toContain('process_resident_memory_bytes');
    });

    it('shows the open jobs by type and status, the owed failure hooks, and the duration of a job this process ran', async () => {
      const characterId = await createCharacter(server, user);
      const job = await startFaceEmbeddingJob(server, user, characterId);
      await waitFor(async () => (await api(server).get(`/jobs/${job.id}`).set(user.auth)).body.job?.status === 'completed', 20_000, 'the job to complete');
      const res = await api(server).get('/metrics').set(scraper);
      expect(samples(res.text, 'persona_job_duration_seconds_count')).toEqual(
        expect.arrayContaining([expect.stringMatching(/^persona_job_duration_seconds_count\{type="recompute_face_embedding",outcome="completed"\} [1-9]/)]),
      );
      expect(samples(res.text, 'persona_queue_jobs')).toEqual(expect.arrayContaining([
        expect.stringMatching(/^persona_queue_jobs\{type="recompute_face_embedding",status="pending"\} \d+$/),
        expect.stringMatching(/^persona_queue_jobs\{type="recompute_face_embedding",status="running"\} \d+$/),
      ]));
      // The owed failure hooks, read from this database at the scrape: nothing failed, nothing owed.
      const lines = res.text.split('\n');
      expect(lines).toContain('persona_owed_failure_hooks 0');
      expect(lines).toContain('persona_owed_failure_hooks_oldest_age_seconds 0');
      // Every collector's read succeeded (a failed one is logged and leaves its gauge unset, at 0).
      expect(server.output.join('')).not.toContain('metrics collector failed');
    });

    if (E2E_MODE === 'services') {
      it('counts a refund still owed and shows how long the oldest has been owed', async () => {
        const characterId = await createCharacter(server, user);
        const job = await startFaceEmbeddingJob(server, user, characterId);
        await waitFor(async () => (await api(server).get(`/jobs/${job.id}`).set(user.auth)).body.job?.status === 'completed', 20_000, 'the job to complete');
        // The row as a failure whose hook could not commit leaves it: failed 90 s ago, the next try
        // an hour away (so no sweep pays it during the test).
        const db = new pg.Client({ connectionString: backing.env.DATABASE_URL });
        await db.connect();
        try {
          await db.query(
            `UPDATE jobs SET status = 'failed', finished_at = now() - interval '90 seconds', failure_hook_due_at = now() + interval '1 hour' WHERE id = $1`,
            [job.id],
          );
          const lines = (await api(server).get('/metrics').set(scraper)).text.split('\n');
          expect(lines).toContain('persona_owed_failure_hooks 1');
          const age = Number(lines.find((l) => l.startsWith('persona_owed_failure_hooks_oldest_age_seconds '))?.split(' ')[1]);
          expect(age).toBeGreaterThanOrEqual(90);
          expect(age).toBeLessThan(90 + 60);
        } finally {
          await db.query('UPDATE jobs SET failure_hook_due_at = NULL WHERE id = $1', [job.id]);
          await db.end();
        }
        expect((await api(server).get('/metrics').set(scraper)).text.split('\n')).toContain('persona_owed_failure_hooks 0');
      });
    }
  });

  if (E2E_MODE === 'services') {
    describe('the queue board (Bull on Redis)', () => {
      it('serves the dashboard to an admin sending a bearer token', async () => {
        const res = await api(server).get('/admin/queues').set(admin);
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.text).toContain('<div id="root">');
        expect(res.text).toContain('<base href="/api/v1/admin/queues/" />');
        const queues = await api(server).get('/admin/queues/api/queues').set(admin);
        expect(queues.status).toBe(200);
        expect(queues.body.queues).toEqual([expect.objectContaining({ name: 'jobs', readOnlyMode: true })]);
      });

      it('opens it in a browser through the session cookie: HttpOnly, SameSite=Strict, on the board path only', async () => {
        const session = await api(server).post('/admin/queues/session').set(admin);
        expect(session.status).toBe(204);
        const setCookie = [session.headers['set-cookie'] ?? []].flat().join('\n');
        expect(setCookie).toMatch(/^ps_board=[^;]+; Max-Age=900; Path=\/api\/v1\/admin\/queues; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
        const cookie = boardCookie(session.headers['set-cookie']);
        const page = await api(server).get('/admin/queues').set('Cookie', cookie);
        expect(page.status).toBe(200);
        // The cookie holds a board-only token: not the admin's access token, and no use as one.
        const boardToken = cookie.slice('ps_board='.length);
        expect(boardToken).not.toBe(admin.Authorization.slice('Bearer '.length));
        const replayed = await api(server).get('/auth/me').set('Authorization', `Bearer ${boardToken}`);
        expect([replayed.status, replayed.body.code]).toEqual([401, 'unauthorized']);
        // Nor does the board take an access token put in its cookie by hand.
        const forged = await api(server).get('/admin/queues').set('Cookie', `ps_board=${admin.Authorization.slice('Bearer '.length)}`);
        expect([forged.status, forged.body.code]).toEqual([401, 'unauthorized']);
        expect(page.text).toContain('<div id="root">');
        const asset = page.text.match(/src="(static\/js\/main\.[^"]+\.js)"/)?.[1];
        expect((await api(server).get(`/admin/queues/${asset}`).set('Cookie', cookie)).status).toBe(200);
      });

      it('refuses a non-admin (403), no credentials (401) and a session ended by logout (401)', async () => {
        const byUser = await api(server).get('/admin/queues').set(user.auth);
        expect(byUser.status).toBe(403);
        expect(byUser.body.code).toBe('forbidden');
        const userSession = await api(server).post('/admin/queues/session').set(user.auth);
        expect(userSession.status).toBe(403);
        for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
          const res = await api(server).get(path);
          expect(res.status).toBe(401);
          expect(res.body.code).toBe('unauthorized');
        }
        const login = await api(server).post('/auth/login').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
        const ending = { Authorization: `Bearer ${login.body.access_token}` };
        const cookie = boardCookie((await api(server).post('/admin/queues/session').set(ending)).headers['set-cookie']);
        expect((await api(server).get('/admin/queues').set('Cookie', cookie)).status).toBe(200);
        expect((await api(server).post('/auth/logout').set(ending).send({})).status).toBe(204);
        const revoked = await api(server).get('/admin/queues').set('Cookie', cookie);
        expect(revoked.status).toBe(401);
        expect(revoked.body.code).toBe('unauthorized');
      });
    });
  } else {
    describe('the queue board without Redis', () => {
      it('answers 404 not_found, saying the queue runs in process, to an admin as to anyone', async () => {
        for (const headers of [admin, {}]) {
          const res = await api(server).get('/admin/queues').set(headers);
          expect(res.status).toBe(404);
          expect(res.body).toMatchObject({ code: 'not_found', message: expect.stringContaining('runs in process') });
        }
        const session = await api(server).post('/admin/queues/session').set(admin);
        expect(session.status).toBe(404);
        expect(session.body.code).toBe('not_found');
      });
    });
  }
});
