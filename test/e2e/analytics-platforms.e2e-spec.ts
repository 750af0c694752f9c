import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { api, connectSandbox, grantCredits, loginAdmin, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { describeOnServices, E2E_MODE } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { closePlatformFakes, platformEnv, startPlatformFakes, type FakePlatform, type PlatformFakes } from '../fakes/platforms/index.js';

/**
 * Analytics against the five platform fakes (contract §15, issue 17's acceptance): each adapter's
 * numbers arrive in the API as the fake served them, a platform's 429 on metric calls delays the
 * sync without touching publishing, two workers sync each connection once per period, and ten
 * measured posts move the slot planner to the character's best hour.
 */
type Body = Record<string, any>;
type PlatformName = keyof PlatformFakes;
type Auth = { Authorization: string };

const PLATFORMS: PlatformName[] = ['instagram', 'twitter', 'tiktok', 'youtube', 'pinterest'];
const VIDEO_PLATFORMS = new Set<PlatformName>(['tiktok', 'youtube']);
const APP_URL = 'http://app.e2e.test';

/**
 * What each fake serves (under the platform's own metric names), the followers of its account, and
 * what the API must show: X's reposts and quotes are both shares; a metric the platform does not
 * report is null, never 0.
 */
const SERVED: Record<PlatformName, { served: Record<string, number>; followers: number; expected: Record<string, number | null> }> = {
  instagram: {
    served: { views: 1500, reach: 900, likes: 120, comments: 14, shares: 9, saved: 31 },
    followers: 4321,
    expected: { impressions: null, views: 1500, likes: 120, comments: 14, shares: 9, saves: 31 },
  },
  twitter: {
    served: { impression_count: 2200, like_count: 75, reply_count: 6, retweet_count: 11, quote_count: 3, bookmark_count: 8 },
    followers: 812,
    expected: { impressions: 2200, views: null, likes: 75, comments: 6, shares: 14, saves: 8 },
  },
  tiktok: {
    served: { view_count: 9800, like_count: 640, comment_count: 52, share_count: 37 },
    followers: 15000,
    expected: { impressions: null, views: 9800, likes: 640, comments: 52, shares: 37, saves: null },
  },
  youtube: {
    served: { viewCount: 3400, likeCount: 210, commentCount: 19 },
    followers: 2750,
    expected: { impressions: null, views: 3400, likes: 210, comments: 19, shares: null, saves: null },
  },
  pinterest: {
    served: { IMPRESSION: 5600, SAVE: 44, PIN_CLICK: 70, OUTBOUND_CLICK: 12 },
    followers: 390,
    expected: { impressions: 5600, views: null, likes: null, comments: null, shares: null, saves: 44 },
  },
};

/** (likes + comments + shares + saves) / the larger of impressions and views, as the contract's doc says. */
function engagementOf(m: Record<string, number | null>): number {
  const reach = Math.max(m.impressions ?? 0, m.views ?? 0);
  return ((m.likes ?? 0) + (m.comments ?? 0) + (m.shares ?? 0) + (m.saves ?? 0)) / reach;
}

/** The real OAuth round trip against a fake: our auth URL → the fake's consent → our callback. */
async function connectLive(server: TestServer, user: TestUser, p: PlatformName): Promise<void> {
  const authUrl = await api(server).get(`/integrations/${p}/auth-url`).query({ redirect: '/x' }).set(user.auth);
  expect(authUrl.status).toBe(200);
  const consent = await fetch(authUrl.body.url as string, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const callback = new URL(consent.headers.get('location')!);
  const back = await fetch(`http://127.0.0.1:${server.port}${callback.pathname}${callback.search}`, { redirect: 'manual' });
  expect(back.headers.get('location')).toBe(`${APP_URL}/x?connected=${p}`);
  if (p === 'pinterest') {
    const board = await api(server).patch('/integrations/pinterest/default-board').set(user.auth).send({ board_id: '1001' });
    expect(board.status).toBe(200);
  }
}

async function newCharacter(server: TestServer, user: TestUser, name: string): Promise<string> {
  const res = await api(server).post('/characters').set(user.auth).send({ name, niche: 'gardening', settings: { autopilot: true } });
  expect(res.status).toBe(201);
  return res.body.character.id as string;
}

/** A fresh item of the character for the platform (an image, or a video), approved at once by autopilot. */
async function approvedItem(server: TestServer, user: TestUser, character: string, p: PlatformName): Promise<Body> {
  const topic = `${p} analytics story ${Date.now().toString(36)}`;
  const res = VIDEO_PLATFORMS.has(p)
    ? await api(server).post('/content/video/generate').set(user.auth).send({ character_id: character, platform: p, scene_description: topic, duration_seconds: 5 })
    : await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: p, prompt: topic, type: 'single' });
  expect([201, 202]).toContain(res.status);
  const id = res.body.item.id as string;
  return waitFor(async () => {
    const item = (await api(server).get(`/content/${id}`).set(user.auth)).body.item as Body;
    if (item.status === 'failed') throw new Error(`item ${id} failed: ${JSON.stringify(item.job)}`);
    return item.status === 'approved' ? item : undefined;
  }, 60_000, `item ${id} to be approved`);
}

async function scheduleItem(server: TestServer, user: TestUser, itemId: string, inMs: number): Promise<Body> {
  const res = await api(server).post(`/content/${itemId}/schedule`).set(user.auth).send({ scheduled_at: new Date(Date.now() + inMs).toISOString() });
  expect(res.status).toBe(201);
  return res.body.scheduled_posts[0] as Body;
}

async function endedJob(server: TestServer, auth: Auth, jobId: string): Promise<Body> {
  return waitFor(async () => {
    const job = (await api(server).get(`/jobs/${jobId}`).set(auth)).body.job as Body | undefined;
    return job && ['completed', 'failed'].includes(job.status as string) ? job : undefined;
  }, 60_000, `job ${jobId} to end`);
}

describe('analytics against the platform fakes', () => {
  let fakes: PlatformFakes;
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let user: TestUser;
  let admin: Auth;

  beforeAll(async () => {
    fakes = await startPlatformFakes();
    backing = await createBacking();
    const env = {
      ...platformEnv(fakes),
      APP_URL,
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      RATE_LIMIT_MULTIPLIER: '50',
      PUBLISH_DISPATCH_INTERVAL_MS: '100',
      PUBLISH_POLL_TIMEOUT_MS: '3000',
      // Only the on-demand syncs of these tests run: the periodic one would race them at the fakes.
      ANALYTICS_SCHEDULER_TICK_MS: '3600000',
    };
    server = await startServer(backing, env);
    if (E2E_MODE === 'services') worker = await startWorker(backing, { ...env, PUBLIC_URL: `http://127.0.0.1:${server.port}` });
    admin = await loginAdmin(server);
    user = await registerUser(server);
    // Five characters: more than the Starter plan holds.
    await setPlan(server, admin, user.workspace.id, 'agency');
    await grantCredits(server, admin, user.workspace.id, 1000);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([server?.stop(), worker?.stop()]);
    await closePlatformFakes(fakes);
    await backing?.cleanup();
  });

  it('serves each platform’s numbers, followers and follower_count exactly as the fakes served them (simulated: false)', async () => {
    // One character per platform, so each character's follower_count is one account's followers.
    const published: Partial<Record<PlatformName, { character: string; post: Body }>> = {};
    for (const p of PLATFORMS) {
      await connectLive(server, user, p);
      const character = await newCharacter(server, user, `Luna ${p}`);
      const item = await approvedItem(server, user, character, p);
      const scheduled = await scheduleItem(server, user, item.id as string, 3_600_000);
      const now = await api(server).post(`/schedule/${scheduled.id}/publish-now`).set(user.auth);
      expect([p, now.status]).toEqual([p, 200]);
      const post = now.body.scheduled_post as Body;
      expect(fakes[p].posts.map((x) => x.id)).toContain(post.remote_post_id);
      fakes[p].setMetrics(post.remote_post_id as string, SERVED[p].served);
      fakes[p].setFollowers(SERVED[p].followers);
      published[p] = { character, post };
    }

    const sync = await api(server).post('/analytics/sync').set(user.auth);
    expect(sync.status).toBe(202);
    const job = await endedJob(server, user.auth, sync.body.job.id as string);
    expect(job.status).toBe('completed');
    for (const p of PLATFORMS) expect([p, job.result.platforms[p]]).toEqual([p, { status: 'synced', posts: 1, followers: SERVED[p].followers }]);

    for (const p of PLATFORMS) {
      const { character, post } = published[p]!;
      const { expected, followers } = SERVED[p];
      const list = await api(server).get('/analytics/posts').query({ character_id: character }).set(user.auth);
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(1);
      const [row] = list.body.posts as Body[];
      expect(row).toMatchObject({ scheduled_post_id: post.id, content_id: post.content_id, platform: p, remote_url: post.remote_url, simulated: false });
      expect([p, row.metrics]).toEqual([p, expected]);
      expect(row.engagement_rate).toBeCloseTo(engagementOf(expected), 6);

      const overview = await api(server).get('/analytics/overview').query({ character_id: character }).set(user.auth);
      expect(overview.status).toBe(200);
      expect(overview.body).toMatchObject({ simulated: false, totals: { posts: 1, ...expected } });
      expect(overview.body.by_platform).toEqual([expect.objectContaining({ platform: p, posts: 1, ...expected, followers, simulated: false })]);
      expect(overview.body.followers).toEqual([{ date: expect.any(String), platform: p, count: followers }]);
      expect(overview.body.top_posts.map((t: Body) => t.scheduled_post_id)).toEqual([post.id]);

      const char = await api(server).get(`/characters/${character}`).set(user.auth);
      expect([p, char.body.character.follower_count]).toEqual([p, followers]);
    }
  }, 300_000);

  it('a 429 on metric calls only: the sync completes, skipped rate_limited, and a post due at the same time publishes', async () => {
    // Another workspace: the first one's on-demand sync is throttled for ten minutes.
    const other = await registerUser(server);
    await grantCredits(server, admin, other.workspace.id, 200);
    const fake = fakes.instagram;
    await connectLive(server, other, 'instagram');
    const character = await newCharacter(server, other, 'Rate limited');
    const item = await approvedItem(server, other, character, 'instagram');
    fake.reset();
    fake.setMode({ kind: 'rate_limit', times: 1000, retryAfterSeconds: 120, on: 'metrics' });
    try {
      const post = await scheduleItem(server, other, item.id as string, 1_000);
      const sync = await api(server).post('/analytics/sync').set(other.auth);
      expect(sync.status).toBe(202);
      const job = await endedJob(server, other.auth, sync.body.job.id as string);
      expect(job).toMatchObject({ status: 'completed', error: null, result: { skipped: 'rate_limited', platforms: { instagram: { status: 'skipped', code: 'rate_limited' } } } });
      expect(fake.metricCalls).toBeGreaterThanOrEqual(1);

      const done = await waitFor(async () => {
        const res = await api(server).get('/schedule/history').query({ character_id: character }).set(other.auth);
        return (res.body.scheduled_posts as Body[]).find((p) => p.id === post.id);
      }, 30_000, 'the due post to finish');
      expect(done).toMatchObject({ status: 'published', attempts: 1, error: null });
      expect(fake.posts).toHaveLength(1);
      expect(fake.requestsTo(`/v21.0/${fake.options.accountId}/media_publish`, 'POST')).toHaveLength(1);
      // Nothing was filed for the refused read: the post has no metrics yet.
      const list = await api(server).get('/analytics/posts').query({ character_id: character }).set(other.auth);
      expect(list.body.total).toBe(0);
    } finally {
      fake.setMode({ kind: 'ok' });
    }
  }, 120_000);
});

describeOnServices('scheduled syncs with two workers (PostgreSQL + Redis)', () => {
  const INTERVAL_MS = 3_000;
  const PERIODS = 4;
  let fakes: PlatformFakes;
  let backing: Backing;
  let server: TestServer;
  let workers: RunningProcess[] = [];
  let db: pg.Client;

  /** The fake's record of sync reads: Pinterest's follower read is an ordinary account look-up, not a tagged metric route. */
  const syncReads = (p: PlatformName, fake: FakePlatform) => (p === 'pinterest' ? fake.requestsTo('/v5/user_account', 'GET').length : fake.metricCalls);

  beforeAll(async () => {
    fakes = await startPlatformFakes();
    backing = await createBacking({ services: true });
    db = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await Promise.all([server?.stop(), ...workers.map((w) => w.stop())]);
    await db?.end();
    await closePlatformFakes(fakes);
    await backing?.cleanup();
  });

  it(`syncs each connection once per period over ${PERIODS} periods, however many workers tick`, async () => {
    const env = { ...platformEnv(fakes), APP_URL, AUTH_RATE_LIMIT_PER_MINUTE: '1000', ANALYTICS_SYNC_INTERVAL_MS: String(INTERVAL_MS), ANALYTICS_SCHEDULER_TICK_MS: '200' };
    server = await startServer(backing, env);
    const user = await registerUser(server);
    // Connected before any worker runs, so every sync read the fakes see below belongs to a counted job.
    for (const p of PLATFORMS) await connectLive(server, user, p);
    for (const fake of Object.values(fakes)) fake.reset();
    workers = await Promise.all([startWorker(backing, env), startWorker(backing, env)]);

    const completedOf = async () => {
      const { rows } = await db.query<{ platform: string; n: string }>(
        `SELECT payload->'platforms'->>0 AS platform, count(*) AS n FROM jobs
          WHERE job_type = 'sync_analytics' AND status = 'completed' GROUP BY 1`,
      );
      return new Map(rows.map((r) => [r.platform, Number(r.n)]));
    };
    await waitFor(async () => {
      const done = await completedOf();
      return PLATFORMS.every((p) => (done.get(p) ?? 0) >= PERIODS);
    }, (PERIODS + 3) * INTERVAL_MS * 2, `${PERIODS} scheduled syncs of every connection`);
    // A graceful stop finishes the jobs in flight: every read at a fake is then a completed job's.
    await Promise.all(workers.map((w) => w.stop()));

    const { rows } = await db.query<{ platform: string; trigger: string; status: string; created_at: Date }>(
      `SELECT payload->'platforms'->>0 AS platform, payload->>'trigger' AS trigger, status, created_at FROM jobs
        WHERE job_type = 'sync_analytics' ORDER BY created_at`,
    );
    expect(rows.every((r) => r.trigger === 'scheduled' && r.status !== 'failed')).toBe(true);
    const completed = await completedOf();
    for (const p of PLATFORMS) {
      const times = rows.filter((r) => r.platform === p).map((r) => new Date(r.created_at).getTime());
      // Exactly one sync per period: consecutive syncs of a connection are one period apart (a
      // double sync would be ~0 apart, a missed period ≥ 2 periods), with the scheduler's tick as slack.
      const gaps = times.slice(1).map((t, i) => t - times[i]);
      expect([p, gaps.length >= PERIODS - 1]).toEqual([p, true]);
      for (const gap of gaps) {
        expect([p, gap >= INTERVAL_MS - 250, gap < 2 * INTERVAL_MS]).toEqual([p, true, true]);
      }
      // Each completed sync read the account once (no posts yet): the fake saw no other sync.
      expect([p, syncReads(p, fakes[p])]).toEqual([p, completed.get(p)]);
    }
  }, 120_000);
});

describeOnServices('best hours in schedule/generate (seeded history, PostgreSQL)', () => {
  const ZONE = 'Asia/Tokyo';
  const ZONE_OFFSET_MS = 9 * 3_600_000; // Tokyo keeps no daylight saving time.
  const PEAK_HOUR = 7;
  let backing: Backing;
  let server: TestServer;
  let db: pg.Client;
  let user: TestUser;
  let character: string;
  let itemId: string;
  /** The local day the plan starts, five days ahead, as UTC calendar parts of Tokyo's wall clock. */
  let day: { y: number; m: number; d: number };

  /** The instant of a Tokyo wall-clock hour, `daysBefore` the plan's first day. */
  const localInstant = (daysBefore: number, hour: number) => new Date(Date.UTC(day.y, day.m, day.d - daysBefore, hour) - ZONE_OFFSET_MS);

  /**
   * One published Instagram post of the character with its latest metrics, as a sync files them
   * (what AnalyticsReadsRepository.measured reads): published at a local hour with that engagement.
   */
  const seedPost = async (n: number, daysBefore: number, hour: number, rate: number) => {
    const at = localInstant(daysBefore, hour);
    const id = `sch_seed${String(n).padStart(2, '0')}`;
    await db.query(
      `INSERT INTO scheduled_posts (id, workspace_id, content_id, character_id, platform, platform_key, status, scheduled_at, due_at, published_at, remote_post_id)
       VALUES ($1, $2, $3, $4, 'instagram', 'instagram', 'published', $5, $5, $5, $6)`,
      [id, user.workspace.id, itemId, character, at, `seed_${n}`],
    );
    await db.query(
      `INSERT INTO post_metrics_latest (scheduled_post_id, workspace_id, content_id, character_id, platform, account_id, published_at,
                                        impressions, views, likes, comments, shares, saves, engagement_rate, simulated, synced_at)
       VALUES ($1, $2, $3, $4, 'instagram', 'seed_account', $5, NULL, 1000, $6, 0, 0, 0, $7, false, now())`,
      [id, user.workspace.id, itemId, character, at, Math.round(rate * 1000), rate],
    );
  };

  const generate = async () => {
    const res = await api(server).post('/schedule/generate').set(user.auth)
      .send({ character_id: character, start_date: localInstant(0, 0).toISOString(), platforms: ['instagram'], days: 1 });
    expect(res.status).toBe(201);
    expect(res.body.timezone).toBe(ZONE);
    expect(res.body.scheduledPosts).toHaveLength(1);
    return res.body as Body;
  };

  beforeAll(async () => {
    backing = await createBacking({ services: true });
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000', RUN_JOBS_IN_API: 'true' });
    db = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    await db.connect();
    user = await registerUser(server);
    character = await newCharacter(server, user, 'Hana');
    const tz = await api(server).patch(`/characters/${character}`).set(user.auth).send({ timezone: ZONE });
    expect(tz.status).toBe(200);
    await connectSandbox(server, user, 'instagram');
    itemId = (await approvedItem(server, user, character, 'instagram')).id as string;
    const local = new Date(Date.now() + ZONE_OFFSET_MS + 5 * 86_400_000);
    day = { y: local.getUTCFullYear(), m: local.getUTCMonth(), d: local.getUTCDate() };
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await db?.end();
    await backing?.cleanup();
  });

  it('with 9 measured posts keeps the default hours; with 10 peaking at one local hour, plans the next post there', async () => {
    // Four posts at 07:00 engage six times better than the rest. None falls on the plan's weekday
    // (never a multiple of 7 days before it), so that day takes the best hours of the whole week.
    const peaks = [1, 2, 3, 4].map((daysBefore) => ({ daysBefore, hour: PEAK_HOUR, rate: 0.12 }));
    const others = [[5, 10], [6, 15], [8, 20], [9, 10], [10, 15], [11, 20]].map(([daysBefore, hour]) => ({ daysBefore, hour, rate: 0.02 }));
    const posts = [...peaks, ...others];
    for (const [n, p] of posts.slice(0, 9).entries()) await seedPost(n, p.daysBefore, p.hour, p.rate);

    const nine = await generate();
    expect(nine).toMatchObject({ slot_source: 'defaults', slot_sources: { instagram: 'defaults' } });
    expect(nine.scheduledPosts[0]).toMatchObject({ content_id: itemId, platform: 'instagram', status: 'pending' });
    expect(nine.scheduledPosts[0].scheduled_at).toBe(localInstant(0, 9).toISOString());
    const cancelled = await api(server).patch(`/schedule/${nine.scheduledPosts[0].id}`).set(user.auth).send({ status: 'cancelled' });
    expect(cancelled.status).toBe(200);

    await seedPost(9, posts[9].daysBefore, posts[9].hour, posts[9].rate);
    const ten = await generate();
    expect(ten).toMatchObject({ slot_source: 'history', slot_sources: { instagram: 'history' } });
    expect(ten.scheduledPosts[0]).toMatchObject({ content_id: itemId, platform: 'instagram', status: 'pending' });
    expect(ten.scheduledPosts[0].scheduled_at).toBe(localInstant(0, PEAK_HOUR).toISOString());
  }, 60_000);
});
