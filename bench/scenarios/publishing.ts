import pg from 'pg';
import { newId } from '../../src/core/ids.js';
import { closePlatformFakes, platformEnv } from '../../test/fakes/platforms/index.js';
import { startPinterestFake, type PinterestFake } from '../../test/fakes/platforms/pinterest.js';
import { startXFake, type XFake } from '../../test/fakes/platforms/x.js';
import { adminToken, connectPlatform, register, setPlan, type Account } from '../lib/accounts.js';
import { createBacking } from '../lib/backing.js';
import { ApiClient } from '../lib/http.js';
import type { Measurement } from '../lib/load.js';
import type { Target } from '../lib/report.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import { reportProblems, startApi, startWorker, type BenchApi, type BenchProcess } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { percentile, sleep } from '../lib/stats.js';

/**
 * The publish dispatcher: an API and two workers on real PostgreSQL + Redis, Pinterest and X in
 * live mode against their fakes on 127.0.0.1 (one and two HTTP calls per post). Two phases:
 *
 * 1. burst: BURST_POSTS posts all due at once; throughput = posts / (last publish − first claim);
 * 2. steady: STEADY_RATE posts/s scheduled over STEADY_SECONDS; lateness = published_at − scheduled_at;
 * 3. kill: KILL_POSTS posts due at once, one worker SIGKILLed when KILL_AT of them are published
 *    (its calls in flight); the other takes its posts over after the default lease. Lost posts
 *    (not published in the end) must be 0.
 *
 * Posts are seeded in SQL (copies of one approved item with distinct captions); everything after
 * that is the service's own work. Every post must reach the fakes exactly once.
 */
const BURST_POSTS = 2000;
const STEADY_RATE = 100;
const STEADY_SECONDS = 15;
const TARGET_POSTS_PER_S = 100;
const TARGET_LATENESS_P99_MS = 2000;
const PHASE_TIMEOUT_MS = 90_000;
const KILL_POSTS = 1000;
const KILL_AT = 0.3;
/** The kill phase waits out the default 40 s lease, a sweep and the resends: the 90 s bound after the kill, and the posts before it. */
const KILL_PHASE_TIMEOUT_MS = 150_000;
const PLATFORMS = ['pinterest', 'twitter'] as const;
const LOAD_ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000', RUN_JOBS_IN_API: 'false' };

interface BenchFakes {
  pinterest: PinterestFake;
  twitter: XFake;
}

interface Seeded {
  owner: Account;
  sourceItemId: string;
}

async function seedAccount(client: ApiClient): Promise<Seeded> {
  const admin = await adminToken(client);
  const owner = await setPlan(client, admin, await register(client, `publishing-${Date.now().toString(36)}@bench.test`), 'agency');
  for (const platform of PLATFORMS) await connectPlatform(client, owner, platform);
  const boards = await client.get<{ boards: Array<{ id: string }> }>('/integrations/pinterest/boards', { token: owner.token });
  await client.patch('/integrations/pinterest/default-board', { board_id: boards.body.boards[0].id }, { token: owner.token });
  const character = await client.post<{ character: { id: string } }>('/characters', { name: 'Bench poster', niche: 'garden', settings: { autopilot: true } }, { token: owner.token, expect: 201 });
  const generated = await client.post<{ item: { id: string } }>('/content/generate', { character_id: character.body.character.id, platform: 'pinterest', prompt: 'Tomatoes on a balcony' }, { token: owner.token, expect: 201 });
  const id = generated.body.item.id;
  for (let i = 0; i < 120; i++) {
    const item = await client.get<{ item: { status: string } }>(`/content/${id}`, { token: owner.token });
    if (item.body.item.status === 'approved') return { owner, sourceItemId: id };
    if (item.body.item.status === 'failed') throw new Error('the seed item failed to generate');
    await sleep(250);
  }
  throw new Error('the seed item was not approved within 30 s');
}

/** Copies the approved item `count` times (distinct captions) and schedules each copy at its instant. */
async function seedPosts(db: pg.Client, source: string, times: Date[], tag: string): Promise<void> {
  const itemIds = times.map(() => newId('cnt'));
  await db.query(
    `INSERT INTO content_items (id, workspace_id, character_id, status, platform, content_type, kind, image_prompt, caption, hashtags, cta, media, variants)
     SELECT n.id, s.workspace_id, s.character_id, 'approved', s.platform, s.content_type, s.kind, s.image_prompt,
            s.caption || ' (' || $3 || ' ' || n.ord || ')', s.hashtags, s.cta, s.media, s.variants
     FROM content_items s, unnest($2::text[]) WITH ORDINALITY AS n(id, ord) WHERE s.id = $1`,
    [source, itemIds, tag],
  );
  const platforms = times.map((_, i) => PLATFORMS[i % PLATFORMS.length]);
  await db.query(
    `INSERT INTO scheduled_posts (id, workspace_id, content_id, character_id, platform, platform_key, status, scheduled_at, due_at)
     SELECT t.id, c.workspace_id, c.id, c.character_id, t.platform, t.platform, 'pending', t.at, t.at
     FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS t(id, content_id, platform, at) JOIN content_items c ON c.id = t.content_id`,
    [times.map(() => newId('sch')), itemIds, platforms, times],
  );
}

interface PhaseResult {
  published: number;
  failed: number;
  firstClaimMs: number;
  lastPublishMs: number;
  lateness: number[];
}

/** Waits until none of the phase's posts is pending or publishing, then reads how they ended. */
async function finishPhase(db: pg.Client, tag: string, procs: BenchProcess[], timeoutMs = PHASE_TIMEOUT_MS): Promise<PhaseResult> {
  const until = Date.now() + timeoutMs;
  const phase = `SELECT p.* FROM scheduled_posts p JOIN content_items c ON c.id = p.content_id WHERE c.caption LIKE '%(' || $1 || ' %'`;
  for (;;) {
    for (const p of procs) if (p.exited) throw new Error(`a server exited:\n${p.output.slice(-20).join('\n')}`);
    const open = await db.query(`SELECT count(*)::int AS n FROM (${phase}) x WHERE status IN ('pending', 'publishing')`, [tag]);
    if (open.rows[0].n === 0) break;
    if (Date.now() > until) throw new Error(`${open.rows[0].n} post(s) still open after ${timeoutMs / 1000} s`);
    await sleep(250);
  }
  const rows = (await db.query(`SELECT status, scheduled_at, published_at, updated_at FROM (${phase}) x`, [tag])).rows as Array<{ status: string; scheduled_at: Date; published_at: Date | null; updated_at: Date }>;
  const published = rows.filter((r) => r.status === 'published');
  return {
    published: published.length,
    failed: rows.length - published.length,
    firstClaimMs: Math.min(...rows.map((r) => r.scheduled_at.getTime())),
    lastPublishMs: Math.max(...published.map((r) => r.published_at!.getTime())),
    lateness: published.map((r) => r.published_at!.getTime() - r.scheduled_at.getTime()),
  };
}

function phaseMeasurement(label: string, r: PhaseResult, seconds: number, count: number): Measurement {
  return {
    label, connections: 0, durationSeconds: seconds, requests: count, rps: r.published / seconds,
    p50: Math.round(percentile(r.lateness, 50)), p99: Math.round(percentile(r.lateness, 99)),
    non2xx: r.failed, errors: 0, statusCodes: {},
  };
}

async function burst(db: pg.Client, seeded: Seeded, procs: BenchProcess[]): Promise<Measurement> {
  const at = new Date(Date.now() + 2000);
  await seedPosts(db, seeded.sourceItemId, Array.from({ length: BURST_POSTS }, () => at), 'burst');
  console.log(`  burst: ${BURST_POSTS} posts due at ${at.toISOString()}`);
  const r = await finishPhase(db, 'burst', procs);
  const seconds = Math.max(0.001, (r.lastPublishMs - r.firstClaimMs) / 1000);
  console.log(`  burst: ${r.published} published, ${r.failed} failed in ${seconds.toFixed(1)} s after they were due: ${(r.published / seconds).toFixed(0)} posts/s`);
  return phaseMeasurement('dispatcher burst (posts/s; p50/p99 = lateness)', r, seconds, BURST_POSTS);
}

async function steady(db: pg.Client, seeded: Seeded, procs: BenchProcess[]): Promise<Measurement> {
  const start = Date.now() + 3000;
  const count = STEADY_RATE * STEADY_SECONDS;
  const times = Array.from({ length: count }, (_, i) => new Date(start + (i * 1000) / STEADY_RATE));
  await seedPosts(db, seeded.sourceItemId, times, 'steady');
  console.log(`  steady: ${count} posts scheduled at ${STEADY_RATE}/s over ${STEADY_SECONDS} s`);
  const r = await finishPhase(db, 'steady', procs);
  console.log(`  steady: ${r.published} published, ${r.failed} failed; lateness p50 ${percentile(r.lateness, 50).toFixed(0)} ms, p99 ${percentile(r.lateness, 99).toFixed(0)} ms, max ${Math.max(...r.lateness)} ms`);
  return phaseMeasurement(`steady ${STEADY_RATE}/s (p50/p99 = lateness)`, r, STEADY_SECONDS, count);
}

/**
 * A burst with one worker SIGKILLed mid-way (its calls in flight): answers how many posts were
 * lost (not published in the end) and when the last one was published after the kill.
 */
async function killMidBurst(db: pg.Client, seeded: Seeded, procs: BenchProcess[], victim: BenchProcess): Promise<{ lost: number; lastAfterKillS: number }> {
  const at = new Date(Date.now() + 1000);
  await seedPosts(db, seeded.sourceItemId, Array.from({ length: KILL_POSTS }, () => at), 'kill');
  console.log(`  kill: ${KILL_POSTS} posts due at ${at.toISOString()}; one worker SIGKILLed at ${KILL_AT * 100}% published`);
  const phase = `SELECT p.* FROM scheduled_posts p JOIN content_items c ON c.id = p.content_id WHERE c.caption LIKE '%(kill %'`;
  const until = Date.now() + PHASE_TIMEOUT_MS;
  for (;;) {
    const done = await db.query(`SELECT count(*) FILTER (WHERE status = 'published')::int AS n FROM (${phase}) x`);
    if (done.rows[0].n >= KILL_POSTS * KILL_AT) break;
    if (Date.now() > until) throw new Error(`kill: ${done.rows[0].n} of ${KILL_POSTS} published after ${PHASE_TIMEOUT_MS / 1000} s`);
    await sleep(20);
  }
  process.kill(victim.pid, 'SIGKILL');
  const killedAt = (await db.query(`SELECT clock_timestamp() AS at`)).rows[0].at as Date;
  const inFlight = (await db.query(`SELECT count(*)::int AS n FROM (${phase}) x WHERE status = 'publishing' AND call_started_at IS NOT NULL`)).rows[0].n as number;
  const r = await finishPhase(db, 'kill', procs.filter((p) => p !== victim), KILL_PHASE_TIMEOUT_MS);
  const lastAfterKillS = (r.lastPublishMs - killedAt.getTime()) / 1000;
  const lostBy = (await db.query(`SELECT platform_key || ':' || COALESCE(error_code, status) AS k, count(*)::int AS n FROM (${phase}) x WHERE status <> 'published' GROUP BY 1`)).rows as Array<{ k: string; n: number }>;
  console.log(`  kill: ${r.published} published, ${r.failed} lost ${JSON.stringify(Object.fromEntries(lostBy.map((l) => [l.k, l.n])))} (${inFlight} calls in flight at the kill); the last published ${lastAfterKillS.toFixed(1)} s after the kill`);
  return { lost: KILL_POSTS - r.published, lastAfterKillS };
}

/** Every published post reached a fake exactly once, and the fakes hold nothing else. */
async function exactlyOnce(db: pg.Client, fakes: BenchFakes): Promise<{ ok: boolean; note: string }> {
  const published = (await db.query(`SELECT count(*)::int AS n FROM scheduled_posts WHERE status = 'published'`)).rows[0].n as number;
  const atFakes = fakes.pinterest.posts.length + fakes.twitter.posts.length;
  const texts = [...fakes.pinterest.posts, ...fakes.twitter.posts].map((p) => `${p.accountId}|${p.text}`);
  const duplicates = texts.length - new Set(texts).size;
  return { ok: duplicates === 0 && atFakes === published, note: `${published} published in the database, ${atFakes} at the fakes, ${duplicates} duplicate(s)` };
}

async function measureAll(api: BenchApi, workers: BenchProcess[], fakes: BenchFakes, databaseUrl: string): Promise<ScenarioResult> {
  const client = new ApiClient(api.baseUrl);
  const seeded = await seedAccount(client);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const procs = [api, ...workers];
    const burstM = await burst(db, seeded, procs);
    const steadyM = await steady(db, seeded, procs);
    const killed = await killMidBurst(db, seeded, procs, workers[0]);
    const once = await exactlyOnce(db, fakes);
    const targets: Target[] = [
      { goal: `dispatcher >= ${TARGET_POSTS_PER_S} posts/s to the fakes`, actual: `${burstM.rps.toFixed(0)} posts/s`, pass: burstM.rps >= TARGET_POSTS_PER_S && burstM.non2xx === 0, note: burstM.non2xx ? `${burstM.non2xx} failed` : undefined },
      { goal: `lateness p99 < ${TARGET_LATENESS_P99_MS} ms at ${STEADY_RATE} posts/s`, actual: `${steadyM.p99} ms`, pass: steadyM.p99 < TARGET_LATENESS_P99_MS && steadyM.non2xx === 0, note: `p50 ${steadyM.p50} ms` },
      { goal: 'every post reaches the fakes exactly once', actual: once.ok ? 'yes' : 'no', pass: once.ok, note: once.note },
      { goal: 'a worker SIGKILLed mid-burst: 0 lost posts, all published <= 90 s after the kill', actual: `${killed.lost} lost, last ${killed.lastAfterKillS.toFixed(1)} s after`, pass: killed.lost === 0 && killed.lastAfterKillS <= 90 },
    ];
    return { measurements: [burstM, steadyM], targets };
  } finally {
    await db.end();
  }
}

export const publishing: Scenario = {
  name: 'publishing',
  description: `dispatcher: ${BURST_POSTS} due posts at once, then ${STEADY_RATE} posts/s, then ${KILL_POSTS} with a worker SIGKILLed mid-burst, to Pinterest and X fakes; 1 API + 2 workers on PostgreSQL + Redis`,
  async run(settings: BenchSettings): Promise<ScenarioResult> {
    const backing = await createBacking(settings, 'publishing');
    const fakes: BenchFakes = { pinterest: await startPinterestFake(), twitter: await startXFake() };
    const processes: BenchProcess[] = [];
    try {
      const env = { ...backing.env, ...LOAD_ENV, ...platformEnv(fakes) };
      const api = await startApi(env);
      processes.push(api);
      processes.push(await startWorker(env), await startWorker(env));
      return await measureAll(api, processes.slice(1), fakes, backing.env.DATABASE_URL);
    } finally {
      reportProblems(processes);
      await Promise.all(processes.map((p) => p.stop()));
      await closePlatformFakes(fakes);
      await backing.release();
    }
  },
};
