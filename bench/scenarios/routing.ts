import pg from 'pg';
import { FakeA1111Server } from '../../test/fakes/a1111-server.js';
import { startFakeReplicate, type FakeReplicate } from '../../test/fakes/replicate-server.js';
import { adminToken, register, setPlan, type Account } from '../lib/accounts.js';
import { createBacking } from '../lib/backing.js';
import { ApiClient, mapLimit } from '../lib/http.js';
import type { Measurement } from '../lib/load.js';
import { table, type Target } from '../lib/report.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import { startApi, startWorker, type BenchApi, type BenchProcess } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { now } from '../lib/socket.js';
import { describeSpread, sleep } from '../lib/stats.js';
import { measureDecisionOverhead, overheadTable, QUIET_PING_P99_MS, type OverheadRow } from './routing-overhead.js';

/**
 * Self-hosted GPU routing (issue 15). Three readings:
 *
 * 1. The router's decision overhead per job, in this process (routing-overhead.ts): target < 1 ms p99.
 * 2. Image jobs/s of one worker through two healthy A1111 fakes (routing 100 %) against the same
 *    worker on the Replicate fake (routing 0 %), in the same run. Each batch is queued while the
 *    worker is paused (SIGSTOP) and timed from its resume to the last job's finish, so the reading
 *    is the worker's drain, not the API's acceptance. Each round starts with the other path, so
 *    neither always meets the worker first (an order effect was seen in this repo before). Both
 *    fakes answer at once: the ratio is what each path costs the service, not a GPU's speed.
 * 3. A fake's death under a steady stream of jobs routed 100 % to it: the time from the kill to the
 *    first job completed through fallback, when its circuit opened, and that no job failed.
 */
/**
 * NODE_ENV=test: production refuses OUTBOUND_ALLOW_HOSTS, which the GPU fakes on loopback need
 * (nothing else reads NODE_ENV; the webhooks scenario does the same).
 */
const LOAD_ENV = { NODE_ENV: 'test', AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000', OUTBOUND_ALLOW_HOSTS: '127.0.0.1' };
const REPLICATE_TOKEN = 'bench-replicate-token';
const ENDPOINT_CONCURRENCY = 4;
const DRAIN_BATCH = 150;
const DRAIN_ROUNDS = 6;
const WARM_BATCH = 20;
/** Below either path's drain rate, so the stream meets an empty queue and the timings are the death's, not a backlog's. */
const STREAM_RATE = 8;
const STREAM_BEFORE_KILL_MS = 3_000;
/** Each generation on the fake to be killed takes this long, so requests are in flight when it dies. */
const DYING_SLOW_MS = 100;
const STREAM_AFTER_KILL_MS = 6_000;
const OVERHEAD_P99_MS = 1;

type Path = 'selfhosted' | 'cloud';

interface JobRow {
  id: string;
  status: string;
  created_at: Date;
  result: { route?: string; endpoint_id?: string | null; fallback_reason?: string | null } | null;
  finished_at: Date | null;
}

interface Rig {
  api: BenchApi;
  worker: BenchProcess;
  client: ApiClient;
  db: pg.Client;
  admin: string;
  owner: Account;
  characterId: string;
  gpus: FakeA1111Server[];
  endpointIds: string[];
}

async function seed(client: ApiClient): Promise<{ admin: string; owner: Account; characterId: string }> {
  const admin = await adminToken(client);
  const owner = await setPlan(client, admin, await register(client, `routing-${Date.now().toString(36)}@bench.test`), 'agency');
  await client.post(`/admin/workspaces/${owner.workspaceId}/credits`, { amount: 1_000_000, reason: 'bench: routing scenario' }, { token: admin });
  const character = await client.post<{ character: { id: string } }>('/characters', { name: 'Bench creator', niche: 'travel' }, { token: owner.token, expect: 201 });
  return { admin, owner, characterId: character.body.character.id };
}

async function addEndpoint(client: ApiClient, admin: string, name: string, url: string): Promise<string> {
  const res = await client.post<{ endpoint: { id: string } }>('/admin/selfhosted/endpoints', { name, url, kind: 'a1111', max_concurrency: ENDPOINT_CONCURRENCY }, { token: admin, expect: 201 });
  return res.body.endpoint.id;
}

async function setRouting(rig: Rig, percentage: number): Promise<void> {
  await rig.client.request('PUT', '/admin/selfhosted/routing', { token: rig.admin, body: { enabled: true, routing_percentage: percentage } });
}

async function order(rig: Rig, count: number): Promise<string[]> {
  const body = { character_id: rig.characterId, type: 'single', platform: 'instagram', prompt: 'Sunrise run by the river' };
  return mapLimit(Array.from({ length: count }), 8, async () => (await rig.client.post<{ job: { id: string } }>('/content/generate', body, { token: rig.owner.token, expect: 201 })).body.job.id);
}

/** The jobs' rows once every one has ended, read from the database (the row is the job's truth). */
async function settle(rig: Rig, ids: string[], timeoutMs = 120_000): Promise<JobRow[]> {
  const deadline = now() + timeoutMs;
  for (;;) {
    const { rows } = await rig.db.query<JobRow>('SELECT id, status, result, created_at, finished_at FROM jobs WHERE id = ANY($1)', [ids]);
    if (rows.length === ids.length && rows.every((r) => ['completed', 'failed', 'cancelled'].includes(r.status))) return rows;
    if (rig.worker.exited) throw new Error(`the worker exited:\n${rig.worker.output.slice(-30).join('\n')}`);
    if (now() > deadline) throw new Error(`${ids.length} jobs not ended in ${timeoutMs / 1000} s (${rows.filter((r) => r.status === 'completed').length} completed)`);
    await sleep(100);
  }
}

interface Drain {
  jobsPerSecond: number;
  /** Jobs that did not end on the path the batch was routed to, or did not complete. */
  offPath: number;
  failed: number;
}

/** Queues `count` jobs on a paused worker, resumes it and times the drain to the last job's finish. */
async function drain(rig: Rig, path: Path, count: number): Promise<Drain> {
  await setRouting(rig, path === 'selfhosted' ? 100 : 0);
  process.kill(rig.worker.pid, 'SIGSTOP');
  let ids: string[];
  try {
    ids = await order(rig, count);
  } finally {
    process.kill(rig.worker.pid, 'SIGCONT');
  }
  const resumed = Date.now();
  const rows = await settle(rig, ids);
  const last = Math.max(...rows.map((r) => r.finished_at?.getTime() ?? 0));
  return {
    jobsPerSecond: count / Math.max(0.001, (last - resumed) / 1000),
    offPath: rows.filter((r) => r.result?.route !== path || r.result?.fallback_reason).length,
    failed: rows.filter((r) => r.status !== 'completed').length,
  };
}

interface Throughput {
  rates: Record<Path, number[]>;
  offPath: number;
  failed: number;
}

async function throughput(rig: Rig): Promise<Throughput> {
  // A warm-up batch on each path first: the first jobs of a worker pay for its caches and the JIT.
  for (const path of ['selfhosted', 'cloud'] as const) await drain(rig, path, WARM_BATCH);
  const out: Throughput = { rates: { selfhosted: [], cloud: [] }, offPath: 0, failed: 0 };
  for (let round = 0; round < DRAIN_ROUNDS; round++) {
    const turn: Path[] = round % 2 === 0 ? ['selfhosted', 'cloud'] : ['cloud', 'selfhosted'];
    for (const path of turn) {
      const d = await drain(rig, path, DRAIN_BATCH);
      out.rates[path].push(d.jobsPerSecond);
      out.offPath += d.offPath;
      out.failed += d.failed;
      console.log(`  round ${round + 1}: ${path} ${d.jobsPerSecond.toFixed(1)} jobs/s${d.offPath + d.failed > 0 ? ` (${d.offPath} off path, ${d.failed} not completed)` : ''}`);
    }
  }
  return out;
}

interface Death {
  jobs: number;
  failed: number;
  /** Kill → the first job completed through fallback, ms (NaN when none did). */
  firstFallbackMs: number;
  /** Kill → the circuit's opened_at, ms (NaN when it did not open). */
  circuitOpenMs: number;
  consecutiveFailures: number;
  selfhostedAfterKill: number;
  reasons: Record<string, number>;
  /** Requests the fake held when it was killed. */
  heldAtKill: number;
  /** Order → finish, ms, of the jobs drawn self-hosted before the kill and of those that fell back. */
  before: number[];
  fallback: number[];
}

/** Jobs at STREAM_RATE/s by the clock for `ms`, each ordered without waiting for the one before. */
async function stream(rig: Rig, ms: number, into: string[]): Promise<void> {
  const start = now();
  const sends: Promise<void>[] = [];
  for (let i = 0; start + (i * 1000) / STREAM_RATE < start + ms; i++) {
    const wait = start + (i * 1000) / STREAM_RATE - now();
    if (wait > 0) await sleep(wait);
    sends.push(order(rig, 1).then(([id]) => void into.push(id)));
  }
  await Promise.all(sends);
}

/** Routing 100 % to one fake (the other disabled), a steady stream, then the fake killed mid-stream. */
async function death(rig: Rig): Promise<Death> {
  const [victim, other] = rig.endpointIds;
  await rig.client.patch(`/admin/selfhosted/endpoints/${other}`, { status: 'disabled' }, { token: rig.admin });
  await setRouting(rig, 100);
  rig.gpus[0].mode = { slowMs: DYING_SLOW_MS };
  const ids: string[] = [];
  await stream(rig, STREAM_BEFORE_KILL_MS, ids);
  const heldAtKill = rig.gpus[0].held;
  const killedAt = Date.now();
  await rig.gpus[0].stop();
  await stream(rig, STREAM_AFTER_KILL_MS, ids);
  const rows = await settle(rig, ids);
  const fallbacks = rows.filter((r) => r.status === 'completed' && r.result?.route === 'cloud' && r.result.fallback_reason);
  const overview = await rig.client.get<{ endpoints: Array<{ id: string; circuit_opened_at: string | null; consecutive_failures: number }> }>('/admin/selfhosted', { token: rig.admin });
  const ep = overview.body.endpoints.find((e) => e.id === victim)!;
  const reasons: Record<string, number> = {};
  for (const r of fallbacks) reasons[r.result!.fallback_reason!] = (reasons[r.result!.fallback_reason!] ?? 0) + 1;
  const took = (r: JobRow) => r.finished_at!.getTime() - r.created_at.getTime();
  return {
    jobs: rows.length,
    failed: rows.filter((r) => r.status !== 'completed').length,
    firstFallbackMs: fallbacks.length > 0 ? Math.min(...fallbacks.map((r) => r.finished_at!.getTime())) - killedAt : Number.NaN,
    circuitOpenMs: ep.circuit_opened_at ? Date.parse(ep.circuit_opened_at) - killedAt : Number.NaN,
    consecutiveFailures: ep.consecutive_failures,
    selfhostedAfterKill: rows.filter((r) => r.result?.route === 'selfhosted' && r.finished_at!.getTime() > killedAt).length,
    reasons,
    heldAtKill,
    before: rows.filter((r) => r.result?.route === 'selfhosted').map(took),
    fallback: fallbacks.map(took),
  };
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

function drainRow(label: string, rates: number[]): Measurement {
  const rps = mean(rates);
  return { label, connections: 0, durationSeconds: (DRAIN_BATCH * rates.length) / Math.max(rps, 0.001), requests: DRAIN_BATCH * rates.length, rps, p50: 0, p99: 0, non2xx: 0, errors: 0, statusCodes: {}, rounds: rates };
}

function summarise(overhead: OverheadRow[], t: Throughput, d: Death): string {
  const ratio = mean(t.rates.selfhosted) / mean(t.rates.cloud);
  const fmt = (ms: number) => (Number.isNaN(ms) ? 'n/a' : `${ms.toFixed(0)} ms`);
  return [
    'router decision overhead per job, in process: the real SelfHostedRouter, RedisRouterState and RoutingDirectory on the local Redis;',
    "stand-ins: the directory's repository answers fixed rows (its database read runs only on a settings change), the backend and the",
    'fallback answer at once and their time is taken off. The three rows of a block were measured call by call in turn (PING, self-hosted,',
    "cloud, PING, ...), so the machine's hiccups fall on all three alike; sequential calls in rounds, p50 and p99 the median of the rounds'.",
    `A round is quiet when the PING's p99 in it is under ${QUIET_PING_P99_MS} ms: in the others the machine itself denied a sub-millisecond p99.`,
    'At 8 callers a call also waits for the other 7 in the one event loop.',
    overheadTable(overhead),
    '',
    `one worker's drain of ${DRAIN_BATCH} queued image jobs per batch, alternating first path each round (jobs/s; two A1111 fakes, max_concurrency ${ENDPOINT_CONCURRENCY} each, vs the Replicate fake):`,
    table(
      ['path', 'per round', 'mean'],
      [
        ['self-hosted (100 %)', t.rates.selfhosted.map((x) => x.toFixed(1)).join(', '), mean(t.rates.selfhosted).toFixed(1)],
        ['cloud (0 %)', t.rates.cloud.map((x) => x.toFixed(1)).join(', '), mean(t.rates.cloud).toFixed(1)],
      ],
      [false, true, true],
    ),
    `self-hosted/cloud: ${(100 * ratio).toFixed(0)}%; ${t.offPath} job(s) off their path, ${t.failed} not completed`,
    '',
    `a fake (${DYING_SLOW_MS} ms per generation) killed under ${STREAM_RATE} jobs/s routed 100 % to it (${STREAM_BEFORE_KILL_MS / 1000} s before, ${STREAM_AFTER_KILL_MS / 1000} s after), holding ${d.heldAtKill} request(s) when killed: ${d.jobs} jobs, ${d.failed} failed`,
    table(
      ['event', 'after the kill'],
      [
        ['first job completed through fallback', fmt(d.firstFallbackMs)],
        [`circuit opened (${d.consecutiveFailures} consecutive failures)`, fmt(d.circuitOpenMs)],
      ],
      [false, true],
    ),
    `fallbacks by reason: ${Object.entries(d.reasons).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}; ${d.selfhostedAfterKill} job(s) finished self-hosted after the kill`,
    `order → completed: self-hosted before the kill ${describeSpread(d.before)}, through fallback ${describeSpread(d.fallback)}`,
  ].join('\n');
}

function targets(overhead: OverheadRow[], t: Throughput, d: Death): Target[] {
  const ping = overhead.find((r) => r.path === 'redis PING' && r.callers === 1);
  const sequential = overhead.filter((r) => r.path !== 'redis PING' && r.callers === 1);
  const out: Target[] = sequential.map((r) => ({
    goal: `router decision overhead, ${r.path} path: p99 < ${OVERHEAD_P99_MS} ms per job (sequential; median of the quiet rounds)`,
    actual: r.quietRounds > 0 ? `${r.quietP99.toFixed(3)} ms` : 'no quiet round',
    pass: r.quietRounds > 0 && r.quietP99 < OVERHEAD_P99_MS && r.offPath === 0,
    note:
      `${r.quietRounds} of ${r.roundP99s.length} rounds quiet (PING p99 < ${QUIET_PING_P99_MS} ms); all rounds: p99 ${r.p99.toFixed(3)} ms (PING ${ping?.p99.toFixed(3) ?? '?'} ms); ` +
      `p50 ${r.p50.toFixed(3)} ms, ${((r.cpuMs ?? 0) * 1000).toFixed(0)} µs CPU`,
  }));
  out.push({ goal: '100 % routes every image job self-hosted, 0 % none; every job completes', actual: `${t.offPath} off path, ${t.failed} not completed`, pass: t.offPath === 0 && t.failed === 0 });
  out.push({
    goal: 'a fake killed mid-stream: every job completes through fallback, none failed',
    actual: `${d.failed} failed of ${d.jobs}`,
    pass: d.failed === 0 && !Number.isNaN(d.firstFallbackMs),
    note: `first fallback ${d.firstFallbackMs.toFixed(0)} ms after the kill, circuit open after ${d.circuitOpenMs.toFixed(0)} ms`,
  });
  return out;
}

async function measureAll(rig: Rig, overhead: OverheadRow[]): Promise<ScenarioResult> {
  const t = await throughput(rig);
  const d = await death(rig);
  if (rig.api.exited) throw new Error(`the API exited during the routing scenario:\n${rig.api.output.slice(-30).join('\n')}`);
  const measurements = [drainRow('image jobs, self-hosted (2 A1111 fakes)', t.rates.selfhosted), drainRow('image jobs, cloud (Replicate fake)', t.rates.cloud)];
  return { measurements, targets: targets(overhead, t, d), summary: summarise(overhead, t, d) };
}

/** The API first (it runs the migrations on the fresh database), then the worker; processes left behind on a failure are stopped by the run's clean-up. */
async function startRig(env: Record<string, string>, gpus: FakeA1111Server[]): Promise<Rig> {
  const api = await startApi(env);
  const worker = await startWorker(env);
  const client = new ApiClient(api.baseUrl);
  const db = new pg.Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  const s = await seed(client);
  const endpointIds = [await addEndpoint(client, s.admin, 'gpu-a', gpus[0].url), await addEndpoint(client, s.admin, 'gpu-b', gpus[1].url)];
  return { api, worker, client, db, ...s, gpus, endpointIds };
}

export const routing: Scenario = {
  name: 'routing',
  description: 'self-hosted GPU routing: decision overhead, jobs/s self-hosted vs cloud, time from a dead GPU to fallback',
  async run(settings: BenchSettings): Promise<ScenarioResult> {
    const backing = await createBacking(settings, 'routing');
    const gpus = [new FakeA1111Server(), new FakeA1111Server()];
    let replicate: FakeReplicate | undefined;
    let rig: Rig | undefined;
    try {
      // In process first, on a quiet machine: no server runs yet.
      const overhead = await measureDecisionOverhead(backing.env, `${backing.name}_inproc`);
      console.log(`  decision overhead measured: ${overhead.map((r) => `${r.path}×${r.callers} p99 ${(r.p99 * 1000).toFixed(0)} µs`).join(', ')}`);
      await Promise.all(gpus.map((g) => g.start()));
      replicate = await startFakeReplicate({ token: REPLICATE_TOKEN });
      const env = { ...backing.env, ...LOAD_ENV, MEDIA_PROVIDER: 'replicate', REPLICATE_API_URL: replicate.url, REPLICATE_API_TOKEN: REPLICATE_TOKEN };
      rig = await startRig(env, gpus);
      console.log(`  API pid ${rig.api.pid}, worker pid ${rig.worker.pid}; endpoints ${rig.endpointIds.join(', ')} on ${gpus.map((g) => g.url).join(', ')}; Replicate fake ${replicate.url}`);
      return await measureAll(rig, overhead);
    } finally {
      await rig?.db.end();
      await rig?.worker.stop();
      await rig?.api.stop();
      await Promise.all(gpus.map((g) => g.stop()));
      await replicate?.close();
      await backing.release();
    }
  },
};
