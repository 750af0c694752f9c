import { adminToken, register, setPlan, type Account } from '../lib/accounts.js';
import { createBacking } from '../lib/backing.js';
import { CpuMeter, describeCpu } from '../lib/cpu.js';
import { ApiClient } from '../lib/http.js';
import { isClean, measure, type LoadOptions, type LoadSpec, type Measurement } from '../lib/load.js';
import { RssMonitor } from '../lib/memory.js';
import { PgActivitySampler } from '../lib/pg-activity.js';
import type { Target } from '../lib/report.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import { startApi, startWorker, type BenchApi, type BenchProcess } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { BenchSocket, now, type SocketMessage } from '../lib/socket.js';
import { openLoop, openLoopRow, tallyAnswers, type Sent } from '../lib/open-loop.js';
import { describeSpread, percentile, sleep } from '../lib/stats.js';

/**
 * The content pipeline: POST /content/generate on the API, the image job on a separate worker
 * process (Bull on Redis, local providers rendering real PNGs), and the job's events back through
 * Redis pub/sub to a socket on the API. Three phases:
 *
 * 1. steady: an open-loop 20 requests/s with API and worker side by side, on an empty queue, each
 *    timed from before its request to its `job.completed` event on the socket;
 * 2. acceptance: the API's answer alone ("queued", not "done"), in two readings: its capacity
 *    (autocannon at full tilt, 50 connections) and its latency at the target rate (an open loop of
 *    150 requests/s, by the clock). The worker is paused (SIGSTOP) meanwhile: on these two cores a
 *    worker rendering images takes most of a core, and at scale workers run on their own machines
 *    (README); the API's capacity is read on the cores it would have;
 * 3. drain: the worker, resumed, works on the acceptance's backlog, bounded in time; its jobs/s are
 *    reported. The backlog is thousands of rendered images, more than this machine's worker makes in
 *    the scenario's budget (21-42 jobs/s seen), so the end-to-end reading runs first, not after it.
 *
 * The plan limits would turn this into a 429 benchmark, so the limiter multiplies them (it still
 * counts every request in Redis); sign-in is limited per address, so its limit is lifted too.
 */
const LOAD_ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000' };

const ACCEPT_TARGET_RPS = 150;
const ACCEPT_P99_MS = 100;
const STEADY_RATE = 20;
const STEADY_SECONDS = 15;
const COMPLETION_P99_MS = 1000;
/** A steady-phase job that has not completed this long after its request counts as a failure. */
const COMPLETION_BOUND_MS = 10_000;
/** Credits are sized for this acceptance rate, far above the target, so the balance never runs out. */
const CREDIT_SIZING_RPS = 1000;
const IMAGE_PRICE = 3;
/** The whole scenario, start-up to clean-up. */
const SCENARIO_BUDGET_MS = 240_000;
/** Kept back from the budget for stopping the processes and dropping the database. */
const CLEANUP_RESERVE_MS = 15_000;
const DRAIN_MAX_MS = 160_000;
const POLL_MS = 500;

interface JobWire {
  id: string;
  status: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  error: { code: string; message: string } | null;
}

interface JobSeen {
  endedAt?: number;
  status?: 'completed' | 'failed';
  job?: JobWire;
}

/** Every job event of the workspace, as the socket delivers them, with their arrival times. */
class JobWatch {
  readonly jobs = new Map<string, JobSeen>();
  ended = 0;
  failed = 0;
  lastEndedAt = 0;

  constructor(socket: BenchSocket) {
    socket.on((msg, at) => this.onMessage(msg, at));
  }

  private onMessage(msg: SocketMessage, at: number): void {
    if (msg.type !== 'job.completed' && msg.type !== 'job.failed') return;
    const job = msg.job as JobWire | undefined;
    if (!job?.id) return;
    const seen = this.jobs.get(job.id) ?? {};
    if (seen.endedAt !== undefined) return;
    seen.endedAt = at;
    seen.status = msg.type === 'job.completed' ? 'completed' : 'failed';
    seen.job = job;
    this.jobs.set(job.id, seen);
    this.ended++;
    if (seen.status === 'failed') this.failed++;
    this.lastEndedAt = Math.max(this.lastEndedAt, at);
  }

  async waitFor(jobId: string, timeoutMs: number): Promise<JobSeen | undefined> {
    const until = now() + timeoutMs;
    while (now() < until) {
      const seen = this.jobs.get(jobId);
      if (seen?.endedAt !== undefined) return seen;
      await sleep(20);
    }
    return undefined;
  }
}

const ms = (iso: string | null | undefined): number | undefined => (iso ? Date.parse(iso) : undefined);

/** Run time (started → finished) of the jobs that ended in [from, to), in ms. */
function runTimes(watch: JobWatch, from: number, to: number): number[] {
  const out: number[] = [];
  for (const seen of watch.jobs.values()) {
    if (seen.endedAt === undefined || seen.endedAt < from || seen.endedAt >= to) continue;
    const started = ms(seen.job?.started_at);
    const finished = ms(seen.job?.finished_at);
    if (started !== undefined && finished !== undefined) out.push(finished - started);
  }
  return out;
}

interface Context {
  api: BenchApi;
  worker: BenchProcess;
  client: ApiClient;
  owner: Account;
  characterId: string;
  socket: BenchSocket;
  watch: JobWatch;
  cpu: CpuMeter;
  apiRss: RssMonitor;
  pgActivity: PgActivitySampler;
  budgetEnd: number;
}

async function seed(client: ApiClient, settings: BenchSettings): Promise<{ owner: Account; characterId: string; credits: number }> {
  const stamp = Date.now().toString(36);
  const admin = await adminToken(client);
  const owner = await setPlan(client, admin, await register(client, `content-${stamp}@bench.test`), 'agency');
  const expected = CREDIT_SIZING_RPS * (settings.warmupSeconds + settings.durationSeconds) + STEADY_RATE * STEADY_SECONDS + 10;
  const credits = Math.min(1_000_000, IMAGE_PRICE * expected + 1000);
  await client.post(`/admin/workspaces/${owner.workspaceId}/credits`, { amount: credits, reason: 'bench: content scenario' }, { token: admin });
  const character = await client.post<{ character: { id: string } }>('/characters', { name: 'Bench creator', niche: 'fitness' }, { token: owner.token, expect: 201 });
  return { owner, characterId: character.body.character.id, credits };
}

function generateBody(characterId: string, prompt: string): string {
  return JSON.stringify({ character_id: characterId, type: 'single', platform: 'instagram', prompt });
}

async function queueTotal(ctx: Context, statuses: string): Promise<number> {
  const res = await ctx.client.get<{ total: number }>(`/content/queue?status=${statuses}&page_size=1`, { token: ctx.owner.token });
  return res.body.total;
}

function assertAlive(ctx: Context, phase: string): void {
  for (const [name, proc] of [['API', ctx.api], ['worker', ctx.worker]] as const) {
    if (proc.exited) throw new Error(`the ${name} exited during ${phase}:\n${proc.output.slice(-30).join('\n')}`);
  }
}

/** One request and its job, end to end, before load: the route answers 201, the worker runs, the socket delivers. */
async function probe(ctx: Context): Promise<void> {
  const t0 = now();
  const res = await ctx.client.post<{ job: { id: string; status: string } }>(
    '/content/generate',
    JSON.parse(generateBody(ctx.characterId, 'Probe: morning run along the river')),
    { token: ctx.owner.token, expect: 201 },
  );
  const limit = res.headers.get('x-ratelimit-limit');
  if (limit !== null && Number(limit) < 10_000) {
    console.log(`  warning: /content/generate is limited to ${limit} requests per window; RATE_LIMIT_MULTIPLIER seems not honoured, expect 429s`);
  }
  const seen = await ctx.watch.waitFor(res.body.job.id, 30_000);
  if (seen?.status !== 'completed') {
    throw new Error(`the probe job ${res.body.job.id} did not complete within 30 s (${seen?.status ?? 'no event'}; ${JSON.stringify(seen?.job?.error ?? null)})`);
  }
  console.log(`  probe: 201 then job.completed on the socket ${(seen.endedAt! - t0).toFixed(0)} ms after the request (cold worker)`);
}

interface AcceptanceResult {
  /** Capacity: autocannon at full tilt. */
  measurement: Measurement;
  /** Answer times at the target rate, open loop. */
  latency: Measurement;
  /** The worker working off the backlog: jobs/s, and p50/p99 of a job's run time (started → finished). */
  drain: Measurement;
  acceptedRps: number;
}

async function acceptance(ctx: Context, settings: BenchSettings): Promise<AcceptanceResult> {
  const opts: LoadOptions = { connections: settings.connections, durationSeconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds };
  const spec: LoadSpec = {
    label: 'POST /content/generate',
    url: `${ctx.api.baseUrl}/content/generate`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ctx.owner.token}` },
    body: generateBody(ctx.characterId, 'Morning run along the river at sunrise'),
    // Every accepted request is a job for the drain: past 1.5 times the target's volume the run
    // stops (its table row then shows the shorter duration).
    maxRequests: Math.round(ACCEPT_TARGET_RPS * 1.5 * (settings.warmupSeconds + settings.durationSeconds)),
  };
  console.log(`  acceptance: ${opts.warmupSeconds} s warm-up, ${opts.durationSeconds} s of ${spec.label} at ${opts.connections} connections, at most ${spec.maxRequests} requests`);
  const failedBefore = ctx.watch.failed;
  const endCpu = ctx.cpu.window();
  const endRss = ctx.apiRss.window();
  const endPg = ctx.pgActivity.start();
  const loadStart = now();
  let m: Measurement;
  let latency: Measurement;
  process.kill(ctx.worker.pid, 'SIGSTOP');
  try {
    // The target's reading first, on a system the capacity run has not yet filled with backlog.
    latency = await acceptanceLatency(ctx, settings);
    m = await measure(spec, opts);
  } finally {
    process.kill(ctx.worker.pid, 'SIGCONT');
  }
  const loadEnd = now();
  m.rssPeakMb = endRss();
  const loadCpu = endCpu();
  const loadPg = endPg();
  assertAlive(ctx, 'the acceptance phase');

  // The API's own count: every item made (the probe's included), and those not finished yet.
  const all = (await queueTotal(ctx, 'queued,generating,ready,failed')) - 1;
  const backlog = await queueTotal(ctx, 'queued,generating');
  const acceptedRps = (m.statusCodes['201'] ?? 0) / Math.max(m.durationSeconds, 0.001);
  const loadSeconds = (loadEnd - loadStart) / 1000;
  console.log(`  capacity: ${(m.statusCodes['201'] ?? 0)} × 201 in ${m.durationSeconds.toFixed(1)} s = ${acceptedRps.toFixed(0)}/s; ${all} jobs accepted in both readings (${loadSeconds.toFixed(1)} s, warm-ups included)`);
  console.log(`  CPU during acceptance: ${describeCpu(loadCpu)}`);
  console.log(`  PostgreSQL sessions during acceptance (API + worker): ${loadPg}`);
  console.log(`  backlog for the worker (paused meanwhile): ${backlog} jobs`);

  // Drain, bounded so that the clean-up still fits in the budget: its rate is the reading.
  const drainStart = now();
  const drainUntil = Math.min(drainStart + DRAIN_MAX_MS, Math.max(drainStart + 5_000, ctx.budgetEnd));
  const endDrainCpu = ctx.cpu.window();
  const failedAtLoadEnd = ctx.watch.failed;
  let remaining = backlog;
  while (remaining > 0 && now() < drainUntil) {
    await sleep(POLL_MS);
    assertAlive(ctx, 'the drain');
    remaining = await queueTotal(ctx, 'queued,generating');
  }
  const drainCpu = endDrainCpu();
  const drained = remaining === 0;
  // Drained: it ended with the last job's event; otherwise at the bound.
  const drainEnd = drained && ctx.watch.lastEndedAt > drainStart ? ctx.watch.lastEndedAt : now();
  const drainSeconds = Math.max(0.001, (drainEnd - drainStart) / 1000);
  const done = backlog - remaining;
  const failed = await queueTotal(ctx, 'failed');
  console.log(
    drained
      ? `  drain: the worker finished the backlog of ${backlog} jobs ${drainSeconds.toFixed(1)} s after the load stopped: ${(done / drainSeconds).toFixed(1)} jobs/s`
      : `  drain: ${done} of ${backlog} jobs done within its ${((drainUntil - drainStart) / 1000).toFixed(0)} s bound (${(done / drainSeconds).toFixed(1)} jobs/s), ${remaining} left for the clean-up`,
  );
  const drainRuns = runTimes(ctx.watch, drainStart, drainEnd + 1);
  console.log(`  worker during drain: run time ${describeSpread(drainRuns)}; ${failed} item(s) failed in all; CPU ${describeCpu(drainCpu)}`);
  const drainFailed = ctx.watch.failed - failedAtLoadEnd;
  const statusCodes: Record<string, number> = {};
  if (drainFailed > 0) statusCodes['job.failed'] = drainFailed;
  const drain: Measurement = {
    label: `  worker: drain, ${done} of ${backlog} jobs (run time)`,
    connections: 0,
    durationSeconds: drainSeconds,
    requests: done,
    rps: done / drainSeconds,
    p50: Math.round(percentile(drainRuns, 50)),
    p99: Math.round(percentile(drainRuns, 99)),
    non2xx: drainFailed,
    errors: 0,
    statusCodes,
  };
  if (ctx.watch.failed > failedBefore) console.log(`  ${ctx.watch.failed - failedBefore} job(s) failed during acceptance and drain`);
  return { measurement: m, latency, drain, acceptedRps };
}

/**
 * The API's answer times at the target rate: an open loop (each request leaves on its clock tick,
 * whatever the answers before it), warm-up first and not counted.
 */
async function acceptanceLatency(ctx: Context, settings: BenchSettings): Promise<Measurement> {
  const warm = ACCEPT_TARGET_RPS * settings.warmupSeconds;
  const count = ACCEPT_TARGET_RPS * settings.durationSeconds;
  console.log(`  acceptance latency: ${settings.warmupSeconds} s warm-up, then ${count} requests at ${ACCEPT_TARGET_RPS}/s (open loop, by the clock)`);
  await openLoop(ACCEPT_TARGET_RPS, warm, (s, i) => postGenerate(ctx, s, `Warm-up ${i}: stretch and breathe`));
  const run = await openLoop(ACCEPT_TARGET_RPS, count, (s, i) => postGenerate(ctx, s, `Rate ${i}: lunchtime walk in the park`));
  const answers = tallyAnswers(run.sent);
  const row = openLoopRow(`POST /content/generate at ${ACCEPT_TARGET_RPS}/s (201)`, run, answers.times, answers);
  console.log(`  acceptance latency: sent ${count} in ${run.seconds.toFixed(1)} s (worst send lag ${run.maxLag.toFixed(0)} ms): p50 ${row.p50} ms, p99 ${row.p99} ms`);
  return row;
}

interface SteadyResult {
  answers: Measurement;
  completions: Measurement;
  failures: number;
  completedP99: number;
  failureNotes: string[];
}

/** One generate request, timed from before it leaves; the answer's job id is kept. */
async function postGenerate(ctx: Context, s: Sent, prompt: string): Promise<void> {
  try {
    const res = await fetch(`${ctx.api.baseUrl}/content/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ctx.owner.token}` },
      body: generateBody(ctx.characterId, prompt),
    });
    s.answeredAt = now();
    s.status = res.status;
    const body = (await res.json().catch(() => undefined)) as { job?: { id?: string } } | undefined;
    s.jobId = body?.job?.id;
  } catch (err) {
    s.answeredAt ??= now();
    s.error = err instanceof Error ? err.message : String(err);
  }
}

async function steady(ctx: Context): Promise<SteadyResult> {
  const count = STEADY_RATE * STEADY_SECONDS;
  console.log(`  steady: ${count} requests at ${STEADY_RATE}/s (open loop, by the clock), each timed to its job.completed on the socket`);
  const endCpu = ctx.cpu.window();
  const endPg = ctx.pgActivity.start();
  const run = await openLoop(STEADY_RATE, count, (s, i) => postGenerate(ctx, s, `Steady ${i}: evening stretch on the balcony`));
  const { sent } = run;
  const pendingJobs = () => sent.filter((s) => s.jobId !== undefined && ctx.watch.jobs.get(s.jobId)?.endedAt === undefined).length;
  const waitUntil = Math.max(...sent.map((s) => s.t0)) + COMPLETION_BOUND_MS;
  while (pendingJobs() > 0 && now() < waitUntil) await sleep(50);
  const steadyCpu = endCpu();
  const steadyPg = endPg();
  assertAlive(ctx, 'the steady phase');

  const answers = tallyAnswers(sent);
  const completion: number[] = [];
  const parts = { insert: [] as number[], queued: [] as number[], running: [] as number[], delivery: [] as number[] };
  const notes = new Map<string, number>();
  const note = (why: string) => notes.set(why, (notes.get(why) ?? 0) + 1);
  let jobFailures = 0;
  for (const s of sent) {
    if (s.error !== undefined) {
      note(`request error: ${s.error}`);
      continue;
    }
    if (s.status !== 201 || s.jobId === undefined) {
      note(`answered ${s.status}`);
      continue;
    }
    const seen = ctx.watch.jobs.get(s.jobId);
    if (seen?.endedAt === undefined || seen.endedAt - s.t0 > COMPLETION_BOUND_MS) {
      jobFailures++;
      note(`no job.completed within ${COMPLETION_BOUND_MS / 1000} s`);
      continue;
    }
    if (seen.status !== 'completed') {
      jobFailures++;
      note(`job.failed (${seen.job?.error?.code ?? '?'})`);
      continue;
    }
    completion.push(seen.endedAt - s.t0);
    const created = ms(seen.job?.created_at);
    const started = ms(seen.job?.started_at);
    const finished = ms(seen.job?.finished_at);
    if (created !== undefined && started !== undefined && finished !== undefined) {
      parts.insert.push(created - s.t0);
      parts.queued.push(started - created);
      parts.running.push(finished - started);
      parts.delivery.push(seen.endedAt - finished);
    }
  }
  const failures = count - completion.length;
  console.log(`  steady: sent ${count} in ${run.seconds.toFixed(1)} s (${(count / run.seconds).toFixed(1)}/s, worst send lag ${run.maxLag.toFixed(0)} ms); ${completion.length} completed within ${COMPLETION_BOUND_MS / 1000} s, ${failures} did not`);
  console.log(
    `  where a steady request's time goes (server clocks, same machine): request → job row ${describeSpread(parts.insert)}; ` +
      `queued ${describeSpread(parts.queued)}; running ${describeSpread(parts.running)}; finished → socket ${describeSpread(parts.delivery)}`,
  );
  console.log(`  CPU during steady: ${describeCpu(steadyCpu)}`);
  console.log(`  PostgreSQL sessions during steady (API + worker): ${steadyPg}`);

  return {
    answers: openLoopRow(`POST /content/generate at ${STEADY_RATE}/s (201)`, run, answers.times, answers),
    completions: openLoopRow(`  request → job.completed (socket)`, run, completion, answers, answers.errors + jobFailures),
    failures,
    completedP99: percentile(completion, 99),
    failureNotes: [...notes.entries()].map(([why, n]) => `${n}× ${why}`),
  };
}

async function measureAll(ctx: Context, settings: BenchSettings): Promise<ScenarioResult> {
  await probe(ctx);
  const st = await steady(ctx);
  const acc = await acceptance(ctx, settings);

  const m = acc.measurement;
  const clean = isClean(m);
  const completedP99 = Number.isNaN(st.completedP99) ? 'n/a' : `${st.completedP99.toFixed(0)} ms`;
  const steadyNotes = st.failureNotes;
  const targets: Target[] = [
    {
      goal: `POST /content/generate: capacity >= ${ACCEPT_TARGET_RPS} accepted (201)/s at ${m.connections} connections`,
      actual: `${acc.acceptedRps.toFixed(0)}/s`,
      pass: clean && acc.acceptedRps >= ACCEPT_TARGET_RPS,
      note: clean ? undefined : 'answers were not all 2xx',
    },
    {
      goal: `POST /content/generate at ${ACCEPT_TARGET_RPS}/s: all accepted, p99 < ${ACCEPT_P99_MS} ms`,
      actual: `${acc.latency.p99} ms`,
      pass: isClean(acc.latency) && (acc.latency.statusCodes['201'] ?? 0) === acc.latency.requests && acc.latency.p99 < ACCEPT_P99_MS,
      note: `p50 ${acc.latency.p50} ms${isClean(acc.latency) ? '' : ', answers were not all 201'}`,
    },
    {
      goal: `request → job.completed: p99 < ${COMPLETION_P99_MS} ms at ${STEADY_RATE} req/s, none lost`,
      actual: completedP99,
      pass: st.failures === 0 && st.completedP99 < COMPLETION_P99_MS,
      note: steadyNotes.length > 0 ? steadyNotes.join('; ') : undefined,
    },
  ];
  return { measurements: [st.answers, st.completions, m, acc.latency, acc.drain], targets };
}

function reportProblems(name: string, proc: BenchProcess): void {
  if (proc.problems.length === 0) return;
  console.log(`  the ${name} logged ${proc.problems.length}${proc.problems.length >= 50 ? '+' : ''} warning/error line(s); first ones:`);
  for (const line of proc.problems.slice(0, 5)) console.log(`    ${line.slice(0, 300)}`);
}

export const content: Scenario = {
  name: 'content',
  description: 'content generation: acceptance under load, worker drain, request → job.completed on the socket',
  async run(settings: BenchSettings): Promise<ScenarioResult> {
    const started = now();
    // Within this scenario's 4 minutes, and within its time limit (BENCH_TIMEOUT, per scenario).
    const budgetEnd = Math.min(started + SCENARIO_BUDGET_MS, started + settings.timeoutSeconds * 1000) - CLEANUP_RESERVE_MS;
    const backing = await createBacking(settings, 'content');
    try {
      const env = { ...backing.env, ...LOAD_ENV };
      // The API first: it runs the migrations on the fresh database; the worker then finds them done.
      const api = await startApi(env);
      let worker: BenchProcess | undefined;
      let socket: BenchSocket | undefined;
      let pgActivity: PgActivitySampler | undefined;
      const apiRss = new RssMonitor(api.pid);
      let workerRss: RssMonitor | undefined;
      try {
        worker = await startWorker(env);
        workerRss = new RssMonitor(worker.pid);
        console.log(`  API pid ${api.pid} on ${api.baseUrl}, worker pid ${worker.pid} (database ${backing.name}), ready ${((now() - started) / 1000).toFixed(1)} s after start`);
        const client = new ApiClient(api.baseUrl);
        const s = await seed(client, settings);
        console.log(`  seeded workspace ${s.owner.workspaceId} (agency) with ${s.credits} credits and character ${s.characterId}`);
        socket = await BenchSocket.open(api.baseUrl, s.owner.token);
        const watch = new JobWatch(socket);
        const cpu = new CpuMeter({ api: api.pid, worker: worker.pid });
        pgActivity = await PgActivitySampler.open(settings.pgAdminUrl, backing.name);
        const ctx: Context = { api, worker, client, owner: s.owner, characterId: s.characterId, socket, watch, cpu, apiRss, pgActivity, budgetEnd };
        const result = await measureAll(ctx, settings);
        const counts = [...socket.counts.entries()].map(([type, n]) => `${n} ${type}`).join(', ');
        console.log(`  socket received ${counts}`);
        return result;
      } finally {
        await socket?.close();
        await pgActivity?.close();
        apiRss.stop();
        workerRss?.stop();
        console.log(`  peak RSS: API ${apiRss.peakMb().sampled.toFixed(0)} MB, worker ${workerRss?.peakMb().sampled.toFixed(0) ?? '-'} MB`);
        reportProblems('API', api);
        if (worker) reportProblems('worker', worker);
        await worker?.stop();
        await api.stop();
      }
    } finally {
      await backing.release();
      console.log(`  scenario took ${((now() - started) / 1000).toFixed(0)} s, clean-up included`);
    }
  },
};
