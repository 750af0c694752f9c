import pg from 'pg';
import { closePlatformFakes, platformEnv, startPlatformFakes, type PlatformFakes } from '../../test/fakes/platforms/index.js';
import { adminToken, register, setPlan, type Account } from '../lib/accounts.js';
import { createBacking } from '../lib/backing.js';
import { ApiClient, mapLimit } from '../lib/http.js';
import type { Measurement } from '../lib/load.js';
import { httpSender, openLoop, openLoopRow, tallyAnswers } from '../lib/open-loop.js';
import type { Target } from '../lib/report.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import { reportProblems, startApi, startWorker, type BenchApi, type BenchProcess } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { percentile } from '../lib/stats.js';
import { HISTORY_DAYS, seedHistory } from './analytics-seed.js';
import { measureSync, seedSync, SYNC_WORKSPACES } from './analytics-sync.js';

/**
 * Analytics (issue 17). Two readings on real PostgreSQL + Redis:
 *
 * 1. Reads over a year of history: one workspace with 50 characters (made through the API) and, in
 *    SQL, 20,000 published posts spread over 365 days, characters and the five platforms, with
 *    their latest metrics, their snapshots as the retention sweep leaves them, and 365 follower
 *    days per account; ANALYZE. Then, each at an open-loop READ_RATE requests/s: the overview of
 *    the whole workspace over the year, the overview of one character (a different one each
 *    request) over the year, and the year's posts sorted by engagement. Target: p95 < 100 ms.
 * 2. Sync throughput against the five platform fakes (analytics-sync.ts): posts and connections
 *    synced per second by one worker.
 */
const LOAD_ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000' };
const CHARACTERS = 50;
const POSTS = 20_000;
const READ_RATE = 25;
const TARGET_P95_MS = 100;
const DAY_MS = 86_400_000;

interface ReadSetup {
  owner: Account;
  characterIds: string[];
}

async function seedWorkspace(client: ApiClient): Promise<ReadSetup> {
  const admin = await adminToken(client);
  const owner = await setPlan(client, admin, await register(client, `analytics-${Date.now().toString(36)}@bench.test`), 'agency');
  const characterIds = await mapLimit(Array.from({ length: CHARACTERS }, (_, i) => i), 4, async (i) => {
    const res = await client.post<{ character: { id: string } }>('/characters', { name: `Creator ${i}`, niche: 'fitness' }, { token: owner.token, expect: 201 });
    return res.body.character.id;
  });
  return { owner, characterIds };
}

interface ReadRow {
  row: Measurement;
  p95: number;
}

/** One route at READ_RATE/s by the clock, warm-up first and not counted. */
async function readLoop(api: BenchApi, settings: BenchSettings, label: string, pathOf: (i: number) => string, token: string): Promise<ReadRow> {
  const sender = httpSender(api.baseUrl, (i) => ({ method: 'GET', path: pathOf(i), headers: { authorization: `Bearer ${token}` } }));
  try {
    await openLoop(READ_RATE, Math.round(READ_RATE * settings.warmupSeconds), sender.send);
    const run = await openLoop(READ_RATE, Math.round(READ_RATE * settings.durationSeconds), sender.send);
    const answers = tallyAnswers(run.sent);
    const row = openLoopRow(`${label} at ${READ_RATE}/s`, run, answers.times, answers);
    const p95 = Math.round(percentile(answers.times, 95));
    console.log(`  ${label}: ${run.sent.length} requests at ${READ_RATE}/s: p50 ${row.p50} ms, p95 ${p95} ms, p99 ${row.p99} ms (worst send lag ${run.maxLag.toFixed(0)} ms)`);
    return { row, p95 };
  } finally {
    sender.close();
  }
}

function readTarget(label: string, r: ReadRow): Target {
  const clean = r.row.non2xx === 0 && r.row.errors === 0;
  return {
    goal: `${label}: p95 < ${TARGET_P95_MS} ms at ${READ_RATE}/s`,
    actual: `${r.p95} ms`,
    pass: clean && r.p95 < TARGET_P95_MS,
    note: `p50 ${r.row.p50} / p99 ${r.row.p99} ms${clean ? '' : '; answers were not all 200'}`,
  };
}

async function measureReads(api: BenchApi, db: pg.Client, settings: BenchSettings): Promise<{ rows: ReadRow[]; targets: Target[]; note: string }> {
  const setup = await seedWorkspace(new ApiClient(api.baseUrl));
  const seeded = await seedHistory(db, setup.owner.workspaceId, setup.characterIds, POSTS);
  const note = `reads: workspace with ${CHARACTERS} characters, ${seeded.posts} posts over ${HISTORY_DAYS} days, ${seeded.snapshots} snapshots, ${seeded.followerDays} follower days (seeded in ${seeded.seconds.toFixed(1)} s)`;
  console.log(`  ${note}`);
  const today = new Date();
  const range = `from=${new Date(today.getTime() - (HISTORY_DAYS - 1) * DAY_MS).toISOString().slice(0, 10)}&to=${today.toISOString().slice(0, 10)}`;
  const chars = setup.characterIds;
  const token = setup.owner.token;
  const specs: Array<[string, (i: number) => string]> = [
    ['GET /analytics/overview (workspace, 1 year)', () => `/analytics/overview?${range}`],
    ['GET /analytics/overview (per character, 1 year)', (i) => `/analytics/overview?character_id=${chars[i % chars.length]}&${range}`],
    ['GET /analytics/posts?sort=-engagement_rate (1 year)', (i) => `/analytics/posts?${range}&sort=-engagement_rate&page=${1 + (i % 5)}&page_size=20`],
  ];
  const rows: ReadRow[] = [];
  for (const [label, pathOf] of specs) rows.push(await readLoop(api, settings, label, pathOf, token));
  return { rows, targets: specs.map(([label], i) => readTarget(label, rows[i])), note };
}

async function run(api: BenchApi, env: Record<string, string>, fakes: PlatformFakes, settings: BenchSettings, processes: BenchProcess[]): Promise<ScenarioResult> {
  const db = new pg.Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  try {
    const reads = await measureReads(api, db, settings);
    const client = new ApiClient(api.baseUrl);
    const setup = await seedSync(client, db, fakes);
    // The worker starts once the sync workspaces are seeded (its scheduler finds them not due).
    const worker = await startWorker(env);
    processes.push(worker);
    const sync = await measureSync(client, db, fakes, setup, worker);
    const syncRow: Measurement = {
      label: `sync: ${SYNC_WORKSPACES} POST /analytics/sync drained (posts/s)`, connections: 0, durationSeconds: sync.seconds, requests: sync.synced,
      rps: sync.postsPerSecond, p50: 0, p99: 0, non2xx: sync.skipped.length, errors: 0, statusCodes: {},
    };
    const targets: Target[] = [
      ...reads.targets,
      {
        goal: 'sync against the fakes: every post and connection synced (throughput reported)',
        actual: `${sync.postsPerSecond.toFixed(0)} posts/s, ${sync.connectionsPerSecond.toFixed(1)} conn/s`,
        pass: sync.synced === sync.expected && sync.skipped.length === 0,
        note: sync.skipped.length > 0 ? sync.skipped.join('; ') : `${sync.synced}/${sync.expected} posts`,
      },
    ];
    return { measurements: [...reads.rows.map((r) => r.row), syncRow], targets, summary: `${reads.note}\n${sync.summary}` };
  } finally {
    await db.end();
  }
}

export const analytics: Scenario = {
  name: 'analytics',
  description: `analytics: overview/posts p95 over 1 year (${CHARACTERS} characters × 5 platforms, ${POSTS} posts), sync throughput against the platform fakes`,
  async run(settings: BenchSettings): Promise<ScenarioResult> {
    const backing = await createBacking(settings, 'analytics');
    const fakes = await startPlatformFakes();
    const processes: BenchProcess[] = [];
    try {
      const env = { ...backing.env, ...LOAD_ENV, ...platformEnv(fakes) };
      const api = await startApi(env);
      processes.push(api);
      return await run(api, env, fakes, settings, processes);
    } finally {
      reportProblems(processes);
      await Promise.all(processes.map((p) => p.stop()));
      await closePlatformFakes(fakes);
      await backing.release();
    }
  },
};
