import { createHmac } from 'node:crypto';
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { startFakeStripe, type FakeStripe } from '../../test/fakes/stripe-server.js';
import { STRIPE_TEST_KEY, STRIPE_TEST_WEBHOOK_SECRET, TEST_PRICES, stripeEnv } from '../../test/helpers/stripe.js';
import { register } from '../lib/accounts.js';
import { createBacking } from '../lib/backing.js';
import { CpuCost } from '../lib/cpu.js';
import { ApiClient, mapLimit } from '../lib/http.js';
import { isClean, measureInTurns, type LoadOptions, type LoadSpec, type Measurement } from '../lib/load.js';
import { RssMonitor } from '../lib/memory.js';
import { httpSender, openLoop, openLoopRow, tallyAnswers } from '../lib/open-loop.js';
import { PgActivitySampler } from '../lib/pg-activity.js';
import { latencyTarget, table, type Target } from '../lib/report.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import { reportProblems, startApi, startWorker, type BenchApi, type BenchProcess } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { sleep } from '../lib/stats.js';

/**
 * Billing (issue 27): an API and a worker on real PostgreSQL + Redis, with Stripe settings pointing
 * at the fake Stripe (test/fakes/stripe-server.ts, in this process) on 127.0.0.1.
 *
 * Seeding: 16 workspaces subscribe through the real path (register, `POST /billing/checkout`, the
 * fake's checkout paid, its events delivered to the webhook and synced), so the fake knows every
 * object the load's events name. Each load event is one of those real events (`invoice.paid`,
 * `customer.subscription.updated`, `checkout.session.completed`) under a new event id, signed at
 * send time as Stripe signs; the sync it causes after commit (read the object, the subscription and
 * the recent invoices from the fake, apply them in one transaction) is the real one.
 *
 * 1. The Starter allocation pass (first, on a quiet worker): 10,000 due workspaces seeded in SQL in
 *    one transaction (ledgers that add up, last period's grants), granted by the worker's own pass
 *    (`ALLOCATION_PASS_MS` 200), timed from the seed's commit until 10,000 new `starter:` grants are
 *    visible. Controls that must get nothing: 500 due workspaces with a live subscription, 500 not
 *    due. Then every workspace's ledger must add up to its balance.
 * 2. Webhook intake, the API doing no background work (`OUTBOX_DISPATCH_IN_API=false`) and the
 *    worker paused (SIGSTOP), so the figures are the route's: capacity at 50 connections in turns
 *    with `GET /health`, then answer times at an open loop of 300 events/s over at most 50
 *    connections (at 50 connections a closed loop's mean latency is 50 / throughput, so a p99 under
 *    100 ms is read at the target's rate, not at saturation).
 * 3. Duplicates: the accepted event ids again at 50 connections, every answer read (`duplicate:
 *    true`), nothing new recorded.
 * 4. The worker resumed: its sync rate on the backlog; then the capacity again while it syncs on the
 *    same two cores (reported, not judged). The rest of the backlog is not waited for.
 */
const LOAD_ENV = {
  AUTH_RATE_LIMIT_PER_MINUTE: '100000',
  RATE_LIMIT_MULTIPLIER: '1000',
  // The webhook route is an open route limited per client address; the load all comes from 127.0.0.1.
  OPEN_RATE_LIMIT_PER_MINUTE: '100000',
  RUN_JOBS_IN_API: 'false',
  // The documented setting for an API free of background work: the worker does every sync.
  OUTBOX_DISPATCH_IN_API: 'false',
  ALLOCATION_PASS_MS: '200',
};
const SUBSCRIBERS = 16;
const EVENT_TYPES = ['invoice.paid', 'customer.subscription.updated', 'checkout.session.completed'];
const DUE = 10_000;
const CONTROLS = 500;
const STARTER_CREDITS = 50;
const TARGET_EVENTS_PER_S = 300;
const TARGET_P99_MS = 100;
const TARGET_PASS_S = 30;
const PASS_LIMIT_MS = 60_000;
/** How long the resumed worker's sync rate is read on the backlog before the co-located capacity run. */
const SYNC_WINDOW_MS = 8_000;
const WEBHOOK_PATH = '/webhooks/stripe';

async function until<T>(check: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

async function count(db: pg.Client, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query<{ n: number }>(sql, params);
  return Number(rows[0].n);
}

const load1 = (): string => loadavg()[0].toFixed(2);

/** What every phase works with. */
interface Rig {
  api: BenchApi;
  worker: BenchProcess;
  db: pg.Client;
  /** What this database's sessions wait on, sampled from outside. */
  activity: PgActivitySampler;
  opts: LoadOptions;
  rounds: number;
}

function assertAlive(rig: Rig, during: string): void {
  for (const [name, p] of [['API', rig.api], ['worker', rig.worker]] as const) {
    if (p.exited) throw new Error(`the ${name} exited during ${during}:\n${p.output.slice(-30).join('\n')}`);
  }
}

/**
 * CPU per part: the API, the worker, this database's PostgreSQL sessions (the pools' backends,
 * stable once warm), every PostgreSQL process on the machine (other users' included) and Redis.
 */
async function cpuCost(rig: Rig): Promise<CpuCost> {
  const { rows } = await rig.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  return new CpuCost({
    api: { pids: [rig.api.pid] },
    worker: { pids: [rig.worker.pid] },
    pg: { pids: rows.map((r) => r.pid) },
    postgres: { comm: 'postgres' },
    redis: { comm: 'redis-server' },
  });
}

// ---- seeding: workspaces subscribed through the real checkout ----

/** A registered workspace (its email verified through the mailed link: buying needs it), checked out on `plan`, paid at the fake. */
async function subscribe(api: ApiClient, fake: FakeStripe, email: string, plan: 'pro' | 'agency'): Promise<string> {
  const account = await register(api, email);
  const checkout = await api.post<{ session_id: string }>('/billing/checkout', { plan }, { token: account.token });
  await fake.completeCheckout(checkout.body.session_id);
  return account.workspaceId;
}

async function seedSubscribers(api: ApiClient, db: pg.Client, fake: FakeStripe, stamp: string): Promise<string[]> {
  const started = Date.now();
  const ids = await mapLimit(Array.from({ length: SUBSCRIBERS }, (_, i) => i), 2, (i) =>
    subscribe(api, fake, `billing-${i}-${stamp}@bench.test`, i % 4 === 3 ? 'agency' : 'pro'),
  );
  await until(async () => (await count(db, `SELECT count(*) AS n FROM workspaces WHERE id = ANY($1) AND plan <> 'starter'`, [ids])) === ids.length, 'the subscribed workspaces to leave Starter');
  await until(async () => (await count(db, `SELECT count(*) AS n FROM outbox_events WHERE type = 'billing.provider_event' AND done_at IS NULL`)) === 0, 'the checkout events to be synced');
  const live = await count(db, `SELECT count(*) AS n FROM billing_subscriptions WHERE workspace_id = ANY($1) AND status = 'active'`, [ids]);
  if (live !== ids.length) throw new Error(`${live} of ${ids.length} checked-out workspaces hold an active subscription`);
  console.log(`  seeded ${ids.length} workspaces subscribed through POST /billing/checkout and the fake's checkout in ${((Date.now() - started) / 1000).toFixed(1)} s; the fake made ${fake.events.length} events`);
  return ids;
}

// ---- signed events ----

/** Real events the fake delivered while seeding, as body templates whose event id is replaced per delivery. */
function eventTemplates(fake: FakeStripe): string[] {
  const ID = 'evt_BENCH_EVENT_ID';
  const templates = fake.events
    .filter((e) => EVENT_TYPES.includes(e.type as string))
    .map((e) => JSON.stringify({ ...e, id: ID, pending_webhooks: 1 }, null, 2).split(ID).join('\u0000'));
  if (templates.length === 0) throw new Error('the fake made none of the event types the load replays');
  return templates;
}

/** The load's events: the `i`th is a template under its own id, in Stripe's body layout (two-space JSON). */
class EventSource {
  /** Events handed out so far, and when the first was. */
  built = 0;
  firstAt = 0;

  constructor(
    private readonly templates: string[],
    readonly prefix: string,
  ) {}

  id(i: number): string {
    return `${this.prefix}${String(i).padStart(9, '0')}`;
  }

  indexOf(id: string): number {
    return Number(id.slice(this.prefix.length));
  }

  body(i: number): string {
    return this.templates[i % this.templates.length].replace('\u0000', this.id(i));
  }

  /** The body of an event not handed out before. */
  next(): string {
    if (this.built === 0) this.firstAt = Date.now();
    return this.body(this.built++);
  }
}

/** `Stripe-Signature` as Stripe sends it: `t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, signed now. */
function signedHeaders(body: string, secret = STRIPE_TEST_WEBHOOK_SECRET): Record<string, string> {
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
  return { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', 'stripe-signature': `t=${t},v1=${v1}` };
}

/** One delivery before load: a new event is taken, the same again is a duplicate, a forged signature is refused. */
async function probe(api: BenchApi, templates: string[], stamp: string): Promise<void> {
  const send = async (body: string, headers: Record<string, string>) => {
    const res = await fetch(`${api.baseUrl}${WEBHOOK_PATH}`, { method: 'POST', headers, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  // Its own id prefix: the load's counts are by the load's prefixes.
  const body = new EventSource(templates, `evt_probe${stamp}`).next();
  const first = await send(body, signedHeaders(body));
  const again = await send(body, signedHeaders(body));
  const forged = await send(body, signedHeaders(body, 'whsec_not_the_secret'));
  if (first.status !== 200 || first.body.duplicate !== false) throw new Error(`a new signed event answered ${first.status} ${JSON.stringify(first.body)}`);
  if (again.status !== 200 || again.body.duplicate !== true) throw new Error(`a repeated event answered ${again.status} ${JSON.stringify(again.body)}`);
  if (forged.status !== 401) throw new Error(`a forged signature answered ${forged.status} ${JSON.stringify(forged.body)}`);
}

function freshSpec(api: BenchApi, source: EventSource, label: string): LoadSpec {
  return {
    label,
    url: `${api.baseUrl}${WEBHOOK_PATH}`,
    method: 'POST',
    setupRequest: (req) => {
      const body = source.next();
      return { ...req, method: 'POST', body, headers: { ...req.headers, ...signedHeaders(body) } };
    },
  };
}

/**
 * Accepted events of a source (rows of billing_events with its prefix), their outbox entries, those
 * not synced yet and those whose sync failed, in one statement: one snapshot, so an event and its
 * outbox entry (one transaction) are seen both or neither, even while late answers still commit.
 */
async function intakeCounts(db: pg.Client, prefix: string): Promise<{ events: number; outbox: number; pending: number; failed: number }> {
  const { rows } = await db.query<{ events: number; outbox: number; pending: number; failed: number }>(
    `SELECT (SELECT count(*) FROM billing_events WHERE id LIKE $1 || '%')::int AS events, o.*
     FROM (SELECT count(*)::int AS outbox, (count(*) FILTER (WHERE done_at IS NULL))::int AS pending, (count(*) FILTER (WHERE last_error IS NOT NULL))::int AS failed
           FROM outbox_events WHERE type = 'billing.provider_event' AND payload->>'eventId' LIKE $1 || '%') o`,
    [prefix],
  );
  return rows[0];
}

// ---- reading 1: the Starter allocation pass ----

/**
 * 11,000 Starter workspaces in one transaction: `DUE` due ones, then `CONTROLS` due but subscribed,
 * then `CONTROLS` not due. Anchors 2-19 months back on days 1-28 of their month; the last period
 * (`starter:k`, ended at anchor + k months) was granted and partly spent, some credits were bought:
 * balance = bought + left of the allocation, and the ledger says how (a purchase, the grant, a debit).
 */
const SEED_SQL = `
WITH base AS (
  SELECT i, 'ws_01JBENCHD' || lpad(i::text, 17, '0') AS id,
    date_trunc('month', now()) - (2 + i % 18) * interval '1 month' + (i % 28) * interval '1 day' + (i % 1440) * interval '1 minute' AS anchor,
    2 + i % 18 AS m, (i % 5) * 100 AS bought,
    CASE WHEN i < $1 THEN i % 51 ELSE 50 - i % 30 END AS left_over
  FROM generate_series(0, $1 + 2 * $2 - 1) i),
periods AS (
  SELECT base.*, CASE WHEN anchor + m * interval '1 month' <= now() THEN m ELSE m - 1 END AS k FROM base),
ws AS (
  INSERT INTO workspaces (id, name, plan, credits_balance, created_at, updated_at, allocation_granted, allocation_remaining, allocation_period, allocation_anchor, allocation_resets_at)
  SELECT id, 'Bench starter ' || i, CASE WHEN i >= $1 AND i < $1 + $2 THEN 'pro' ELSE 'starter' END, bought + left_over, anchor, anchor, $3, left_over,
    'starter:' || k, anchor, anchor + (k + CASE WHEN i >= $1 + $2 THEN 1 ELSE 0 END) * interval '1 month'
  FROM periods RETURNING id),
grants AS (
  INSERT INTO credit_grants (workspace_id, grant_key, kind, credits, created_at)
  SELECT id, 'starter:' || k, 'allocation', $3, anchor + k * interval '1 month' FROM periods),
subs AS (
  INSERT INTO billing_subscriptions (workspace_id, provider_subscription_id, plan, status, current_period_start, current_period_end)
  SELECT id, 'sub_bench_' || i, 'pro', 'active', now() - interval '3 days', now() + interval '27 days' FROM periods WHERE i >= $1 AND i < $1 + $2)
INSERT INTO credit_ledger (id, workspace_id, amount, balance_after, reason, ref_type, ref_id, created_at)
SELECT 'led_01JBENCH' || e.tag || lpad(p.i::text, 17, '0'), p.id, e.amount, e.balance_after, e.reason, e.ref_type, e.ref_id, e.at
FROM periods p CROSS JOIN LATERAL (VALUES
  ('P', p.bought, p.bought, 'pack_purchased', 'checkout', 'cs_bench_' || p.i, p.anchor + interval '1 hour'),
  ('A', $3, p.bought + $3, 'allocation_granted', 'grant', 'starter:' || p.k, p.anchor + p.k * interval '1 month'),
  ('D', p.left_over - $3, p.bought + p.left_over, 'content_image', 'content', 'cnt_bench_' || p.i, p.anchor + p.k * interval '1 month' + interval '1 hour')
) AS e (tag, amount, balance_after, reason, ref_type, ref_id, at)
WHERE e.amount <> 0`;

interface PassReading {
  seconds: number | null;
  granted: number;
  seedSeconds: number;
  bad: number;
  controlsGranted: number;
  ledgerMismatches: number;
  cpuMs: Record<string, number>;
  load: string;
}

async function measurePass(rig: Rig): Promise<PassReading> {
  const { db } = rig;
  const starterGrants = `SELECT count(*) AS n FROM credit_grants WHERE grant_key LIKE 'starter:%'`;
  const seedStarted = Date.now();
  const baseline = await count(db, starterGrants);
  await db.query('BEGIN');
  await db.query(SEED_SQL, [DUE, CONTROLS, STARTER_CREDITS]);
  await db.query('COMMIT');
  const committed = Date.now();
  const seedSeconds = (committed - seedStarted) / 1000;
  const load = load1();
  console.log(`  allocation: seeded ${DUE} due Starter workspaces, ${CONTROLS} due with a live subscription, ${CONTROLS} not due, in one transaction (${seedSeconds.toFixed(1)} s); the worker's pass runs every ${LOAD_ENV.ALLOCATION_PASS_MS} ms (load average ${load})`);
  // Seeded: a last-period grant for each of the 11,000; the pass adds one for each due one.
  const seeded = baseline + DUE + 2 * CONTROLS;
  const end = (await cpuCost(rig)).window();
  let seconds: number | null = null;
  let now = baseline;
  const deadline = committed + PASS_LIMIT_MS;
  while (Date.now() < deadline) {
    now = await count(db, starterGrants);
    if (now >= seeded + DUE) {
      seconds = (Date.now() - committed) / 1000;
      break;
    }
    assertAlive(rig, 'the allocation pass');
    await sleep(50);
  }
  const cpuMs = end();
  const granted = now - seeded;
  console.log(`  allocation: ${granted} of ${DUE} granted ${seconds === null ? `(not all within ${PASS_LIMIT_MS / 1000} s)` : `${seconds.toFixed(2)} s after the commit`}`);

  // Each due workspace: its seeded grant and exactly one more, the next period's; the allocation reset, purchases kept, its end moved past now.
  const bad = await count(
    db,
    `SELECT count(*) AS n FROM workspaces w
     WHERE w.id LIKE 'ws_01JBENCHD%' AND right(w.id, 17)::int < $1 AND NOT (
       (SELECT count(*) FROM credit_grants g WHERE g.workspace_id = w.id) = 2
       AND w.allocation_period = 'starter:' || ((SELECT split_part(g.grant_key, ':', 2)::int FROM credit_grants g WHERE g.workspace_id = w.id ORDER BY g.created_at LIMIT 1) + 1)
       AND EXISTS (SELECT 1 FROM credit_grants g WHERE g.workspace_id = w.id AND g.grant_key = w.allocation_period AND g.credits = $2)
       AND w.allocation_granted = $2 AND w.allocation_remaining = $2
       AND w.credits_balance = (right(w.id, 17)::int % 5) * 100 + $2
       AND w.allocation_resets_at > now())`,
    [DUE, STARTER_CREDITS],
  );
  // A control keeps its seeded period; any grant of another key is one it should not have had.
  const controlsGranted = await count(
    db,
    `SELECT count(*) AS n FROM credit_grants g JOIN workspaces w ON w.id = g.workspace_id
     WHERE w.id LIKE 'ws_01JBENCHD%' AND right(w.id, 17)::int >= $1 AND g.grant_key <> w.allocation_period`,
    [DUE],
  );
  const ledgerMismatches = await ledgerMismatchCount(db);
  console.log(`  allocation: ${bad} due workspace(s) not granted exactly once as expected; ${controlsGranted} grant(s) to controls; ${ledgerMismatches} workspace(s) whose ledger does not add up to the balance`);
  return { seconds, granted, seedSeconds, bad, controlsGranted, ledgerMismatches, cpuMs, load };
}

/** Workspaces (all of them) whose ledger does not add up to their balance. */
function ledgerMismatchCount(db: pg.Client): Promise<number> {
  return count(
    db,
    `SELECT count(*) AS n FROM workspaces w LEFT JOIN (SELECT workspace_id, sum(amount) AS total FROM credit_ledger GROUP BY workspace_id) l ON l.workspace_id = w.id
     WHERE w.credits_balance <> COALESCE(l.total, 0)`,
  );
}

// ---- reading 2: webhook intake ----

/** The target's rate over at most `connections` sockets, by the clock: a warm-up, then `durationSeconds`. */
async function openLoopLatency(rig: Rig, source: EventSource): Promise<Measurement> {
  const rate = TARGET_EVENTS_PER_S;
  const sender = httpSender(rig.api.baseUrl, () => {
    const body = source.next();
    return { method: 'POST', path: WEBHOOK_PATH, headers: signedHeaders(body), body };
  }, rig.opts.connections);
  try {
    console.log(`  latency: new events at an open loop of ${rate}/s over at most ${rig.opts.connections} connections, ${rig.opts.warmupSeconds} s warm-up + ${rig.opts.durationSeconds} s (load average ${load1()})`);
    await openLoop(rate, Math.round(rate * rig.opts.warmupSeconds), (s, i) => sender.send(s, i));
    const endActivity = rig.activity.start();
    const run = await openLoop(rate, Math.round(rate * rig.opts.durationSeconds), (s, i) => sender.send(s, i));
    console.log(`    this database's sessions meanwhile: ${endActivity()}`);
    const answers = tallyAnswers(run.sent);
    if (run.maxLag > 50) console.log(`    the load generator fell up to ${run.maxLag.toFixed(0)} ms behind its clock (counted in the latencies)`);
    return openLoopRow(`POST /webhooks/stripe (new) at ${rate}/s, open loop`, run, answers.times, answers);
  } finally {
    sender.close();
  }
}

/** Answers of the duplicate round, as read from each body. */
interface DuplicateAnswers {
  duplicate: number;
  fresh: number;
  other: Record<string, number>;
}

/**
 * Sends accepted events again, cycling over them, at `connections` for `seconds`, and reads every
 * answer's body (the lib's runner does not read bodies; its options and measurement are the same).
 */
function replay(url: string, source: EventSource, accepted: number[], cursor: { next: number }, answers: DuplicateAnswers, connections: number, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        connections,
        duration: seconds,
        timeout: 10,
        requests: [
          {
            setupRequest: (req) => {
              const body = source.body(accepted[cursor.next++ % accepted.length]);
              return { ...req, method: 'POST', body, headers: { ...req.headers, ...signedHeaders(body) } };
            },
            onResponse: (status, body) => {
              let duplicate: unknown;
              try {
                duplicate = (JSON.parse(body) as { duplicate?: unknown }).duplicate;
              } catch {
                duplicate = undefined;
              }
              if (status === 200 && duplicate === true) answers.duplicate++;
              else if (status === 200 && duplicate === false) answers.fresh++;
              else answers.other[String(status)] = (answers.other[String(status)] ?? 0) + 1;
            },
          },
        ],
      },
      (err, result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(result)),
    );
  });
}

function replayMeasurement(label: string, connections: number, r: autocannon.Result, cpuMs: Record<string, number>): Measurement {
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  return {
    label, connections, durationSeconds: r.duration, requests: r.requests.total, rps: r.duration > 0 ? r.requests.total / r.duration : 0,
    p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, statusCodes, cpuMs,
  };
}

interface DuplicateReading {
  m: Measurement;
  answers: DuplicateAnswers;
  newRows: number;
  newOutbox: number;
}

async function measureDuplicates(rig: Rig, source: EventSource): Promise<DuplicateReading> {
  const { rows } = await rig.db.query<{ id: string }>(`SELECT id FROM billing_events WHERE id LIKE $1 || '%' ORDER BY id`, [source.prefix]);
  const accepted = rows.map((r) => source.indexOf(r.id));
  if (accepted.length === 0) throw new Error('no accepted events to send again');
  const answers: DuplicateAnswers = { duplicate: 0, fresh: 0, other: {} };
  const cursor = { next: 0 };
  const url = `${rig.api.baseUrl}${WEBHOOK_PATH}`;
  console.log(`  duplicates: the ${accepted.length} accepted events again, ${rig.opts.warmupSeconds} s warm-up + ${rig.opts.durationSeconds} s at ${rig.opts.connections} connections (load average ${load1()})`);
  const before = await intakeCounts(rig.db, source.prefix);
  if (rig.opts.warmupSeconds > 0) await replay(url, source, accepted, cursor, answers, rig.opts.connections, rig.opts.warmupSeconds);
  const end = (await cpuCost(rig)).window();
  const result = await replay(url, source, accepted, cursor, answers, rig.opts.connections, rig.opts.durationSeconds);
  const m = replayMeasurement('POST /webhooks/stripe (duplicates)', rig.opts.connections, result, end());
  const after = await intakeCounts(rig.db, source.prefix);
  const reading = { m, answers, newRows: after.events - before.events, newOutbox: after.outbox - before.outbox };
  console.log(`  duplicates: ${answers.duplicate} answered duplicate: true, ${answers.fresh} duplicate: false, other ${JSON.stringify(answers.other)}; ${reading.newRows} new event rows, ${reading.newOutbox} new outbox entries`);
  return reading;
}

/** How the accepted events of one source were recorded and synced. */
interface Recorded {
  built: number;
  accepted: number;
  outbox: number;
  /** 2xx answers the measured runs counted (warm-ups not counted). */
  answered: number;
}

interface SyncReading {
  backlog: number;
  rate: number;
  window: number;
  workerCpuPct: number;
  workerUsPerSync: number;
  /** pg_stat_activity's picture of the database's sessions meanwhile. */
  sessions: string;
}

/** The worker resumed on the backlog: syncs done per second over a bounded window. */
async function syncRate(rig: Rig, prefixes: string[]): Promise<SyncReading> {
  const pending = async () => (await Promise.all(prefixes.map(async (p) => (await intakeCounts(rig.db, p)).pending))).reduce((a, b) => a + b, 0);
  const backlog = await pending();
  const started = Date.now();
  process.kill(rig.worker.pid, 'SIGCONT');
  const endActivity = rig.activity.start();
  const endCpu = (await cpuCost(rig)).window();
  let left = backlog;
  while (left > 0 && Date.now() - started < SYNC_WINDOW_MS) {
    await sleep(250);
    assertAlive(rig, 'the sync drain');
    left = await pending();
  }
  const cpuMs = endCpu();
  const sessions = endActivity();
  const window = (Date.now() - started) / 1000;
  const done = backlog - left;
  const rate = done / window;
  const perSync = (part: string) => (done > 0 ? ((cpuMs[part] ?? 0) * 1000) / done : 0);
  console.log(`  syncs: the resumed worker synced ${done} of a backlog of ${backlog} in ${window.toFixed(1)} s: ${rate.toFixed(0)} syncs/s (load average ${load1()})`);
  console.log(`  syncs: CPU per sync: worker ${perSync('worker').toFixed(0)} µs (${((100 * (cpuMs.worker ?? 0)) / (window * 1000)).toFixed(0)}% of a cpu), bench + fake Stripe ${perSync('bench').toFixed(0)} µs, pg (this db) ${perSync('pg').toFixed(0)} µs`);
  console.log(`  syncs: this database's sessions: ${sessions}`);
  return { backlog, rate, window, workerCpuPct: (100 * (cpuMs.worker ?? 0)) / (window * 1000), workerUsPerSync: perSync('worker'), sessions };
}

interface IntakeReading {
  health: Measurement;
  fresh: Measurement;
  latency: Measurement;
  duplicates: DuplicateReading;
  recorded: Recorded;
  sync: SyncReading;
  colocated: { health: Measurement; fresh: Measurement; backlogBefore: number; backlogAfter: number; recorded: Recorded };
  end: { left: number; failed: number; ledgerMismatches: number };
  load: { before: string; after: string };
}

async function recorded(rig: Rig, source: EventSource, measured: Measurement[]): Promise<Recorded> {
  const c = await intakeCounts(rig.db, source.prefix);
  const answered = measured.reduce((n, m) => n + Object.entries(m.statusCodes).filter(([code]) => code.startsWith('2')).reduce((k, [, v]) => k + v, 0), 0);
  return { built: source.built, accepted: c.events, outbox: c.outbox, answered };
}

async function measureIntake(rig: Rig, templates: string[], stamp: string): Promise<IntakeReading> {
  const loadBefore = load1();
  const paused = new EventSource(templates, `evt_bench${stamp}a`);
  const health: LoadSpec = { label: 'GET /health', url: `${rig.api.baseUrl}/health` };
  console.log(`  capacity: GET /health and new signed events in turns, worker paused, ${rig.opts.warmupSeconds} s warm-up each, then ${rig.rounds} rounds of ${(rig.opts.durationSeconds / rig.rounds).toFixed(1)} s each at ${rig.opts.connections} connections (load average ${loadBefore})`);
  let healthM: Measurement;
  let fresh: Measurement;
  let latency: Measurement;
  let duplicates: DuplicateReading;
  process.kill(rig.worker.pid, 'SIGSTOP');
  try {
    [healthM, fresh] = await measureInTurns([health, freshSpec(rig.api, paused, 'POST /webhooks/stripe (new events)')], rig.opts, rig.rounds, await cpuCost(rig));
    assertAlive(rig, 'the capacity run');
    latency = await openLoopLatency(rig, paused);
    assertAlive(rig, 'the open loop');
    duplicates = await measureDuplicates(rig, paused);
  } catch (err) {
    process.kill(rig.worker.pid, 'SIGCONT');
    throw err;
  }
  // syncRate resumes the worker; until then its backlog stands as the load left it.
  const rec = await recorded(rig, paused, [fresh, latency]).catch((err: unknown) => {
    process.kill(rig.worker.pid, 'SIGCONT');
    throw err;
  });
  console.log(`  intake: ${rec.built} new events sent, ${rec.accepted} accepted, ${rec.outbox} outbox entries (the worker paused: none synced yet)`);

  const sync = await syncRate(rig, [paused.prefix]);

  // The same capacity run while the worker syncs the backlog on the same cores.
  const alongside = new EventSource(templates, `evt_bench${stamp}b`);
  const backlogBefore = (await intakeCounts(rig.db, paused.prefix)).pending;
  console.log(`  capacity with the worker syncing a backlog of ${backlogBefore} meanwhile (load average ${load1()})`);
  const [healthB, freshB] = await measureInTurns(
    [{ ...health, label: 'GET /health (worker syncing)' }, freshSpec(rig.api, alongside, 'POST /webhooks/stripe (new events, worker syncing)')],
    rig.opts,
    rig.rounds,
    await cpuCost(rig),
  );
  assertAlive(rig, 'the co-located capacity run');
  const backlogAfter = (await intakeCounts(rig.db, paused.prefix)).pending + (await intakeCounts(rig.db, alongside.prefix)).pending;
  const recB = await recorded(rig, alongside, [freshB]);

  // The rest is not waited for (at the sync rate above it would take minutes): failures are counted among those synced.
  const left = backlogAfter;
  const failed = (await intakeCounts(rig.db, paused.prefix)).failed + (await intakeCounts(rig.db, alongside.prefix)).failed;
  const ledgerMismatches = await ledgerMismatchCount(rig.db);
  console.log(`  syncs: ${left} still pending at the end; ${failed} sync(s) with an error; ${ledgerMismatches} workspace(s) whose ledger does not add up to the balance`);
  return {
    health: healthM, fresh, latency, duplicates, recorded: rec, sync,
    colocated: { health: healthB, fresh: freshB, backlogBefore, backlogAfter, recorded: recB },
    end: { left, failed, ledgerMismatches },
    load: { before: loadBefore, after: load1() },
  };
}

// ---- report ----

/** CPU per part while a route ran: % of one cpu over its measured time, and µs per request. */
function cpuTable(ms: Measurement[]): string {
  const parts = ['api', 'worker', 'bench', 'pg', 'postgres', 'redis'];
  const rows = ms
    .filter((m) => m.cpuMs && m.requests > 0)
    .map((m) => [
      m.label,
      ...parts.map((p) => `${((100 * (m.cpuMs?.[p] ?? 0)) / (m.durationSeconds * 1000)).toFixed(0)}% / ${(((m.cpuMs?.[p] ?? 0) * 1000) / m.requests).toFixed(0)}`),
    ]);
  const header = ['CPU: % of one cpu / µs per request', 'api', 'worker', 'bench + fake Stripe', 'pg (this db)', 'postgres (all)', 'redis'];
  return table(header, rows, header.map((_, i) => i > 0));
}

function ratio(m: Measurement, base: Measurement): string {
  return base.rps > 0 ? `${((100 * m.rps) / base.rps).toFixed(0)}%` : '-';
}

function summary(intake: IntakeReading, pass: PassReading, rssPeak: number, templates: number): string {
  const { fresh, latency, duplicates: dup, sync, colocated: co, end } = intake;
  const perRound = (m: Measurement) => (m.rounds ?? []).map((r) => r.toFixed(0)).join(', ');
  const rows = [
    ['new events, worker paused: events/s at 50 conn', `${fresh.rps.toFixed(0)}/s (${ratio(fresh, intake.health)} of health; ${perRound(fresh)} per round), p50 / p99 ${fresh.p50} / ${fresh.p99} ms`],
    [`new events at ${TARGET_EVENTS_PER_S}/s open loop: p50 / p99`, `${latency.p50} / ${latency.p99} ms (${latency.requests} events, ${latency.non2xx} not 2xx, ${latency.errors} errors)`],
    ['  sent / accepted / outbox entries', `${intake.recorded.built} / ${intake.recorded.accepted} / ${intake.recorded.outbox} (${templates} real events of the fake, replayed under new ids)`],
    ['duplicates: events/s at 50 conn, p50 / p99', `${dup.m.rps.toFixed(0)}/s (${ratio(dup.m, intake.health)} of health), ${dup.m.p50} / ${dup.m.p99} ms`],
    ['  answers', `${dup.answers.duplicate} duplicate: true, ${dup.answers.fresh} duplicate: false, other ${JSON.stringify(dup.answers.other)}; ${dup.newRows} new rows, ${dup.newOutbox} new outbox entries`],
    ['syncs after commit, one worker', `${sync.rate.toFixed(0)} syncs/s on a backlog of ${sync.backlog} (over ${sync.window.toFixed(1)} s); worker ${sync.workerCpuPct.toFixed(0)}% of a cpu, ${sync.workerUsPerSync.toFixed(0)} µs per sync`],
    ['new events, worker syncing: events/s at 50 conn', `${co.fresh.rps.toFixed(0)}/s (${ratio(co.fresh, co.health)} of its health run, ${co.health.rps.toFixed(0)}/s), p50 / p99 ${co.fresh.p50} / ${co.fresh.p99} ms; backlog ${co.backlogBefore} → ${co.backlogAfter}`],
    ['  syncs at the end', `${end.left} still pending (not waited for), ${end.failed} of those done with an error`],
    ['allocation pass: 10,000 due workspaces', pass.seconds === null ? `${pass.granted} granted, not all` : `${pass.seconds.toFixed(2)} s from the seed's commit (${(DUE / pass.seconds).toFixed(0)} grants/s; seed ${pass.seedSeconds.toFixed(1)} s)`],
    ['  CPU during the pass', `worker ${(pass.cpuMs.worker ?? 0).toFixed(0)} ms, pg (this db) ${(pass.cpuMs.pg ?? 0).toFixed(0)} ms, postgres (all) ${(pass.cpuMs.postgres ?? 0).toFixed(0)} ms`],
    ['  checks', `${pass.bad} due not granted exactly once, ${pass.controlsGranted} grants to controls, ${pass.ledgerMismatches} ledger mismatches (all workspaces)`],
    ['API peak RSS', `${rssPeak.toFixed(0)} MB`],
    ['load average (1 min): pass / intake start / end', `${pass.load} / ${intake.load.before} / ${intake.load.after}`],
  ];
  return [cpuTable([intake.health, fresh, dup.m, co.health, co.fresh]), '', table(['billing reading', 'figure'], rows, [false, false])].join('\n');
}

function targets(intake: IntakeReading, pass: PassReading): Target[] {
  const { fresh, latency, duplicates: dup, recorded: a, colocated: co, end } = intake;
  const dupOk = dup.answers.duplicate > 0 && dup.answers.fresh === 0 && Object.keys(dup.answers.other).length === 0 && dup.newRows === 0 && dup.newOutbox === 0;
  // Autocannon may build one request per connection that it never sends, per run (a warm-up, each round).
  const unsentBound = (m: Measurement) => m.connections * ((m.rounds?.length ?? 1) + 1);
  const sound = (r: Recorded, bound: number) => r.accepted === r.outbox && r.accepted >= r.answered && r.built - r.accepted >= 0 && r.built - r.accepted <= bound;
  const recordedOk = sound(a, unsentBound(fresh)) && sound(co.recorded, unsentBound(co.fresh)) && end.failed === 0 && end.ledgerMismatches === 0;
  return [
    {
      goal: `signed webhook intake >= ${TARGET_EVENTS_PER_S} events/s at ${fresh.connections} connections (worker paused)`,
      actual: `${fresh.rps.toFixed(0)} events/s`,
      pass: isClean(fresh) && fresh.rps >= TARGET_EVENTS_PER_S,
      note: isClean(fresh) ? `${ratio(fresh, intake.health)} of GET /health; with the worker syncing: ${co.fresh.rps.toFixed(0)}/s` : 'answers were not all 2xx',
    },
    latencyTarget(latency, TARGET_P99_MS, `over <= ${fresh.connections} connections`),
    {
      goal: 'every new event recorded once with one outbox entry; no sync failed; ledgers = balances after',
      actual: `${a.accepted + co.recorded.accepted} of ${a.built + co.recorded.built} sent`,
      pass: recordedOk,
      note: `${a.outbox + co.recorded.outbox} outbox entries, ${end.failed} failed syncs, ${end.left} not synced yet at the end, ${end.ledgerMismatches} ledger mismatches`,
    },
    {
      goal: 'a repeated event id answers duplicate: true and records nothing',
      actual: `${dup.answers.duplicate} of ${dup.answers.duplicate + dup.answers.fresh + Object.values(dup.answers.other).reduce((x, y) => x + y, 0)}`,
      pass: dupOk,
      note: `${dup.newRows} new rows, ${dup.newOutbox} new outbox entries`,
    },
    {
      goal: `allocation pass grants ${DUE.toLocaleString('en')} due workspaces < ${TARGET_PASS_S} s`,
      actual: pass.seconds === null ? `${pass.granted} granted` : `${pass.seconds.toFixed(2)} s`,
      pass: pass.seconds !== null && pass.seconds < TARGET_PASS_S,
    },
    {
      goal: 'each due workspace granted exactly once, controls not at all, every ledger = balance',
      actual: `${pass.bad + pass.controlsGranted + pass.ledgerMismatches} wrong`,
      pass: pass.seconds !== null && pass.bad === 0 && pass.controlsGranted === 0 && pass.ledgerMismatches === 0,
      note: `${pass.bad} due wrong, ${pass.controlsGranted} control grants, ${pass.ledgerMismatches} ledger mismatches`,
    },
  ];
}

export const billing: Scenario = {
  name: 'billing',
  description: `billing: the Starter allocation pass over ${DUE.toLocaleString('en')} due workspaces, then signed Stripe webhooks (new, duplicates) at 50 connections against the fake Stripe; 1 API + 1 worker`,
  async run(settings: BenchSettings): Promise<ScenarioResult> {
    const backing = await createBacking(settings, 'billing');
    const fake = await startFakeStripe({ secretKey: STRIPE_TEST_KEY, webhookSecret: STRIPE_TEST_WEBHOOK_SECRET, prices: { ...TEST_PRICES } });
    const processes: BenchProcess[] = [];
    const db = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    let dbOpen = false;
    let activity: PgActivitySampler | undefined;
    try {
      const env = { ...backing.env, ...LOAD_ENV, ...stripeEnv(fake) };
      const api = await startApi(env);
      processes.push(api);
      const worker = await startWorker(env);
      processes.push(worker);
      fake.webhookUrl = `${api.baseUrl}${WEBHOOK_PATH}`;
      await db.connect();
      dbOpen = true;
      // The seed's month arithmetic must be the pass's, which works in UTC.
      await db.query(`SET TIME ZONE 'UTC'`);
      const rss = new RssMonitor(api.pid);
      const stamp = Date.now().toString(36);
      activity = await PgActivitySampler.open(settings.pgAdminUrl, backing.name);
      const opts = { connections: settings.connections, durationSeconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds };
      const rig: Rig = { api, worker, db, activity, opts, rounds: settings.rounds };
      await seedSubscribers(new ApiClient(api.baseUrl), db, fake, stamp);
      const pass = await measurePass(rig);
      const templates = eventTemplates(fake);
      await probe(api, templates, stamp);
      const intake = await measureIntake(rig, templates, stamp);
      const peak = rss.peakMb();
      rss.stop();
      return {
        measurements: [intake.health, intake.fresh, intake.latency, intake.duplicates.m, intake.colocated.health, intake.colocated.fresh],
        targets: targets(intake, pass),
        summary: summary(intake, pass, peak.sampled, templates.length),
      };
    } finally {
      reportProblems(processes);
      await activity?.close();
      if (dbOpen) await db.end().catch(() => undefined);
      await Promise.all(processes.map((p) => p.stop()));
      await fake.close();
      await backing.release();
    }
  },
};
