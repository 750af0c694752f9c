import { loadavg } from 'node:os';
import pg from 'pg';
import { newId } from '../../src/core/ids.js';
import { adminToken, register, setPlan, type Account } from '../lib/accounts.js';
import { createBacking } from '../lib/backing.js';
import { CpuCost, CpuMeter, describeCpu } from '../lib/cpu.js';
import { ApiClient } from '../lib/http.js';
import { measureInTurns, type LoadSpec, type Measurement } from '../lib/load.js';
import { httpSender, openLoop, openLoopRow, tallyAnswers } from '../lib/open-loop.js';
import { ratioTarget, table, type Target } from '../lib/report.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import { reportProblems, startApi, startWorker, type BenchApi, type BenchProcess } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';
import { percentile, sleep } from '../lib/stats.js';
import { Receiver, type Arrival } from './webhooks-receivers.js';

/**
 * Outbound webhooks (issue 28): one API and two workers on the local PostgreSQL and Redis, an
 * Agency workspace with five endpoints subscribed to `*`, each a receiver on 127.0.0.1 that
 * answers 204 at once. Four readings:
 *
 * 1. drain: DRAIN_EVENTS `content.approved` events inserted at once, with the INSERT the product's
 *    Outbox makes (one statement; the approve route cannot make 1,000 events at one instant), about
 *    approved items of the workspace so their bodies render as GET /content/{id}; the fan-out, the
 *    claims and the sends are the workers' own. Time from the events' creation to the 5,000th arrival.
 * 2. latency: the real approve route (`POST /characters/{id}/content/{contentId}/approve`, which
 *    records `content.approved` in its transaction) at an open loop of LATENCY_RATE/s, with
 *    LATENCY_ENDPOINTS endpoints enabled (see there); event created (the body's `created_at`) →
 *    arrival at each receiver.
 * 3. duplicates: webhook-ids that reached one receiver more than once, over the whole run.
 * 4. write route: the same approve route in a workspace without endpoints (its outbox INSERT writes
 *    nothing) and in the one with five (an event per approval), in turns: first with the workers
 *    paused (SIGSTOP: the outbox row in the transaction and nothing else; judged, the "with
 *    the outbox in their transaction"), then with them fanning out and sending on the same two
 *    cores, beside GET /health (reported: it shows the fan-out's CPU, not the route's cost).
 *
 * The defaults are kept (WEBHOOK_POLL, WEBHOOK_BATCH, OUTBOX_POLL_MS, ...). Two settings differ from
 * a production deployment, and say why: NODE_ENV=test, because production refuses http:// endpoint
 * URLs and OUTBOUND_ALLOW_HOSTS (the receivers are on loopback; nothing else reads NODE_ENV), and
 * OUTBOX_DISPATCH_IN_API=false (docs/mail.md: the setting for an API kept free of background work),
 * so the workers do all of the fan-out and the API's figures are the route's.
 */
const ENDPOINTS = 5;
const DRAIN_EVENTS = 1000;
const TARGET_DELIVERIES_PER_S = 200;
const LATENCY_RATE = 100;
/**
 * Endpoints enabled during the latency reading. At 100 events/s, five endpoints are 500
 * deliveries/s: about 4 ms of worker and database CPU each (the drain's figure before this
 * session's claim and send changes), plus the approvals themselves, is more than two cores have,
 * so the queue could only grow. One endpoint (100 deliveries/s) is what the latency target can be
 * measured at on this machine; the drain measures the five-endpoint throughput.
 */
const LATENCY_ENDPOINTS = 1;
const LATENCY_SECONDS = 10;
const TARGET_P99_MS = 1000;
const TARGET_WRITE_RATIO = 0.95;
/** Ready items per workspace for the write-route reading: each approval needs an item not yet approved. */
const OVERHEAD_ITEMS = 20_000;
const PHASE_TIMEOUT_MS = 60_000;
const ENV = {
  NODE_ENV: 'test',
  OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  OUTBOX_DISPATCH_IN_API: 'false',
  RUN_JOBS_IN_API: 'false',
  AUTH_RATE_LIMIT_PER_MINUTE: '100000',
  RATE_LIMIT_MULTIPLIER: '1000',
};

interface Workspace {
  owner: Account;
  characterId: string;
  templateId: string;
}

interface Rig {
  api: BenchApi;
  workers: BenchProcess[];
  client: ApiClient;
  db: pg.Client;
  receivers: Receiver[];
  secrets: string[];
  endpointIds: string[];
  hooked: Workspace;
  plain: Workspace;
}

const load1 = () => loadavg()[0].toFixed(2);
const ms = (v: number) => `${Math.round(v)}`;
const spread = (v: number[]) => `p50 ${ms(percentile(v, 50))} / p95 ${ms(percentile(v, 95))} / p99 ${ms(percentile(v, 99))} / max ${ms(Math.max(...v))} ms`;

function assertAlive(rig: Rig, during: string): void {
  for (const p of [rig.api, ...rig.workers]) {
    if (p.exited) throw new Error(`pid ${p.pid} exited during ${during}:\n${p.output.slice(-30).join('\n')}`);
  }
}

// ---- seeding ----

/** An Agency workspace, a character and one generated item (the template the SQL copies are made of). */
async function seedWorkspace(client: ApiClient, admin: string, label: string): Promise<Workspace> {
  const owner = await setPlan(client, admin, await register(client, `webhooks-${label}-${Date.now().toString(36)}@bench.test`), 'agency');
  const character = await client.post<{ character: { id: string } }>('/characters', { name: `Bench ${label}`, niche: 'fitness' }, { token: owner.token, expect: 201 });
  const characterId = character.body.character.id;
  const body = { character_id: characterId, type: 'single', platform: 'instagram', prompt: 'Morning run along the river' };
  const generated = await client.post<{ item: { id: string } }>('/content/generate', body, { token: owner.token, expect: 201 });
  const templateId = generated.body.item.id;
  for (let i = 0; i < 240; i++) {
    const item = await client.get<{ item: { status: string } }>(`/content/${templateId}`, { token: owner.token });
    if (item.body.item.status === 'ready' || item.body.item.status === 'approved') return { owner, characterId, templateId };
    if (item.body.item.status === 'failed') throw new Error(`the ${label} template item failed to generate`);
    await sleep(250);
  }
  throw new Error(`the ${label} template item was not generated within 60 s`);
}

/** `count` copies of the workspace's template item in `status` (distinct captions); answers their ids. */
async function copyItems(db: pg.Client, ws: Workspace, count: number, status: 'ready' | 'approved', tag: string): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId('cnt'));
  await db.query(
    `INSERT INTO content_items (id, workspace_id, character_id, status, platform, content_type, kind, image_prompt, caption, hashtags, cta, media, variants, video, language, job_id, media_job_id)
     SELECT n.id, s.workspace_id, s.character_id, $3, s.platform, s.content_type, s.kind, s.image_prompt, s.caption || ' (' || $4 || ' ' || n.ord || ')',
            s.hashtags, s.cta, s.media, s.variants, s.video, s.language, s.job_id, s.media_job_id
       FROM content_items s, unnest($2::text[]) WITH ORDINALITY AS n(id, ord) WHERE s.id = $1`,
    [ws.templateId, ids, status, tag],
  );
  return ids;
}

/** One endpoint per receiver, subscribed to `*`, through the product route; answers their secrets and ids in the receivers' order. */
async function createEndpoints(client: ApiClient, owner: Account, receivers: Receiver[]): Promise<{ secrets: string[]; ids: string[] }> {
  const secrets: string[] = [];
  const ids: string[] = [];
  for (const r of receivers) {
    const res = await client.post<{ secret: string; endpoint: { id: string } }>('/webhooks/endpoints', { url: r.url, event_types: ['*'], description: 'bench receiver' }, { token: owner.token, expect: 201 });
    secrets.push(res.body.secret);
    ids.push(res.body.endpoint.id);
  }
  return { secrets, ids };
}

/** Enables the first `count` endpoints of the hooked workspace and disables the rest (the product route). */
async function enableEndpoints(rig: Rig, count: number): Promise<void> {
  for (const [i, id] of rig.endpointIds.entries()) {
    await rig.client.patch(`/webhooks/endpoints/${id}`, { enabled: i < count }, { token: rig.hooked.owner.token, expect: 200 });
  }
}

/** Waits until every receiver has an arrival about each of `resources`; answers those first arrivals. */
async function arrivalsFor(rig: Rig, resources: string[], what: string, receivers = rig.receivers): Promise<Arrival[]> {
  const until = Date.now() + PHASE_TIMEOUT_MS;
  for (;;) {
    assertAlive(rig, what);
    const missing = receivers.reduce((n, r) => n + resources.filter((id) => !r.firstByResource.has(id)).length, 0);
    if (missing === 0) break;
    if (Date.now() > until) throw new Error(`${what}: ${missing} of ${resources.length * receivers.length} deliveries not arrived after ${PHASE_TIMEOUT_MS / 1000} s`);
    await sleep(50);
  }
  return receivers.flatMap((r) => resources.map((id) => r.firstByResource.get(id)!));
}

// ---- where the time goes ----

/** What a phase cost: CPU per process and of this database's sessions, and the reads of `webhook_deliveries`. */
interface PhaseCost {
  cpu: string;
  /** CPU ms of the two workers together and of this database's sessions over the phase. */
  workerMs: number;
  pgMs: number;
  /** Scans of webhook_deliveries (sequential and index) and the rows they read (pg_stat_user_tables). */
  seqScans: number;
  seqRows: number;
}

async function deliveryScans(db: pg.Client): Promise<{ scans: number; rows: number }> {
  const { rows } = await db.query<{ scans: string; rows: string }>(
    `SELECT seq_scan + coalesce(idx_scan, 0) AS scans, seq_tup_read + coalesce(idx_tup_fetch, 0) AS rows FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'`,
  );
  return { scans: Number(rows[0]?.scans ?? 0), rows: Number(rows[0]?.rows ?? 0) };
}

/** Starts measuring a phase; the function it answers ends it. */
async function phaseCost(rig: Rig): Promise<() => Promise<PhaseCost>> {
  const sessions = await rig.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  const endCpu = new CpuMeter({ api: rig.api.pid, 'worker 1': rig.workers[0].pid, 'worker 2': rig.workers[1].pid }).window();
  const endPg = new CpuCost({ pg: { pids: sessions.rows.map((r) => r.pid) } }).window();
  const scans = await deliveryScans(rig.db);
  return async () => {
    const share = endCpu();
    const pgMs = endPg().pg ?? 0;
    const pgPct = (100 * pgMs) / (share.seconds * 1000);
    const workerMs = ((share.procs['worker 1'] + share.procs['worker 2']) * share.seconds * 1000) / 100;
    // Backends report their table counters at most once a second.
    await sleep(1200);
    const after = await deliveryScans(rig.db);
    return { cpu: `${describeCpu(share)}; of the rest, this database's sessions ${pgPct.toFixed(0)}%`, workerMs, pgMs, seqScans: after.scans - scans.scans, seqRows: after.rows - scans.rows };
  };
}

const cpuPer = (c: PhaseCost, deliveries: number) =>
  `workers ${((c.workerMs * 1000) / Math.max(1, deliveries)).toFixed(0)} µs + this database ${((c.pgMs * 1000) / Math.max(1, deliveries)).toFixed(0)} µs of CPU per delivery`;

const scansPer = (c: PhaseCost, deliveries: number) =>
  `${c.seqScans} scans of webhook_deliveries (sequential and index) reading ${c.seqRows.toLocaleString('en')} rows (${(c.seqScans / Math.max(1, deliveries)).toFixed(1)} scans, ${Math.round(c.seqRows / Math.max(1, deliveries)).toLocaleString('en')} rows per delivery)`;

// ---- 1. drain ----

interface DrainReading {
  m: Measurement;
  seconds: number;
  firstMs: number;
  fannedOutMs: number;
  steadyRate: number;
  cost: PhaseCost;
  load: string;
}

async function drain(rig: Rig): Promise<DrainReading> {
  const items = await copyItems(rig.db, rig.hooked, DRAIN_EVENTS, 'approved', 'drain');
  const eventIds = items.map(() => newId('evt'));
  const load = load1();
  const end = await phaseCost(rig);
  // The Outbox's own INSERT (src/platform/outbox/outbox.ts), for 1,000 events in one statement.
  const inserted = await rig.db.query<{ occurred_at: Date }>(
    `INSERT INTO outbox_events (id, type, workspace_id, payload, secret_sealed)
     SELECT e.id, 'content.approved', $3, jsonb_build_object('contentId', e.content_id, 'characterId', $4::text), NULL
       FROM unnest($1::text[], $2::text[]) AS e(id, content_id)
     RETURNING occurred_at`,
    [eventIds, items, rig.hooked.owner.workspaceId, rig.hooked.characterId],
  );
  const t0 = inserted.rows[0].occurred_at.getTime();
  console.log(`  drain: ${DRAIN_EVENTS} events inserted at once; waiting for ${DRAIN_EVENTS * ENDPOINTS} deliveries (load ${load})`);
  const arrivals = await arrivalsFor(rig, items, 'drain');
  const cost = await end();
  const times = arrivals.map((a) => a.arrivedAt).sort((a, b) => a - b);
  const last = times[times.length - 1];
  const seconds = (last - t0) / 1000;
  const fanned = await rig.db.query<{ last: Date }>('SELECT max(created_at) AS last FROM webhook_deliveries WHERE event_id = ANY($1)', [eventIds]);
  // Between the 10th and the 90th percentile of arrivals: the rate once the loops are busy.
  const [p10, p90] = [times[Math.floor(times.length * 0.1)], times[Math.floor(times.length * 0.9)]];
  const lags = arrivals.map((a) => a.arrivedAt - t0);
  const reading: DrainReading = {
    m: {
      label: `drain: ${DRAIN_EVENTS} events x ${ENDPOINTS} endpoints (deliveries/s; p50/p99 = event to arrival)`,
      connections: 0, durationSeconds: seconds, requests: arrivals.length, rps: arrivals.length / seconds,
      p50: Math.round(percentile(lags, 50)), p99: Math.round(percentile(lags, 99)), non2xx: 0, errors: 0, statusCodes: {},
    },
    seconds,
    firstMs: times[0] - t0,
    fannedOutMs: fanned.rows[0].last.getTime() - t0,
    steadyRate: (0.8 * times.length) / Math.max(0.001, (p90 - p10) / 1000),
    cost,
    load: `${load} → ${load1()}`,
  };
  console.log(`  drain: ${arrivals.length} deliveries in ${seconds.toFixed(2)} s (${reading.m.rps.toFixed(0)}/s; first after ${reading.firstMs} ms, all fanned out after ${reading.fannedOutMs} ms); ${cost.cpu}; ${scansPer(cost, arrivals.length)}`);
  return reading;
}

// ---- 2. latency at an open loop ----

interface LatencyReading {
  m: Measurement;
  answers: Measurement;
  values: number[];
  toFanOut: number[];
  fanOutToArrival: number[];
  delivered: number;
  expected: number;
  cost: PhaseCost;
  load: string;
}

async function latency(rig: Rig): Promise<LatencyReading> {
  const items = await copyItems(rig.db, rig.hooked, LATENCY_RATE * LATENCY_SECONDS, 'ready', 'latency');
  const { characterId, owner } = rig.hooked;
  await enableEndpoints(rig, LATENCY_ENDPOINTS);
  const load = load1();
  const end = await phaseCost(rig);
  const sender = httpSender(rig.api.baseUrl, (i) => ({ method: 'POST', path: `/characters/${characterId}/content/${items[i]}/approve`, headers: { authorization: `Bearer ${owner.token}` } }));
  console.log(`  latency: POST …/approve at ${LATENCY_RATE}/s for ${LATENCY_SECONDS} s, open loop (load ${load})`);
  const run = await openLoop(LATENCY_RATE, items.length, sender.send).finally(() => sender.close());
  const answers = tallyAnswers(run.sent);
  const approved = items.filter((_, i) => run.sent[i].status === 200);
  const arrivals = await arrivalsFor(rig, approved, 'latency', rig.receivers.slice(0, LATENCY_ENDPOINTS));
  const cost = await end();
  await enableEndpoints(rig, ENDPOINTS);
  const values = arrivals.map((a) => a.arrivedAt - a.createdAt);
  // Where the time goes: event → its deliveries written (the fan-out), then → arrival (claim and send).
  const { rows } = await rig.db.query<{ content_id: string; occurred_at: Date; fanned: Date }>(
    `SELECT e.payload->>'contentId' AS content_id, e.occurred_at, min(d.created_at) AS fanned
       FROM outbox_events e JOIN webhook_deliveries d ON d.event_id = e.id
      WHERE e.workspace_id = $1 AND e.payload->>'contentId' = ANY($2) GROUP BY 1, 2`,
    [owner.workspaceId, approved],
  );
  const fannedAt = new Map(rows.map((r) => [r.content_id, r.fanned.getTime()]));
  const reading: LatencyReading = {
    m: { ...openLoopRow(`event to delivery at ${LATENCY_RATE} events/s (${LATENCY_ENDPOINTS} endpoint${LATENCY_ENDPOINTS === 1 ? '' : 's'})`, run, values, answers), requests: arrivals.length },
    answers: openLoopRow(`POST …/content/{id}/approve at ${LATENCY_RATE}/s (answer times)`, run, answers.times, answers),
    values,
    toFanOut: rows.map((r) => r.fanned.getTime() - r.occurred_at.getTime()),
    fanOutToArrival: arrivals.map((a) => a.arrivedAt - (fannedAt.get(a.resourceId) ?? Number.NaN)).filter(Number.isFinite),
    delivered: arrivals.length,
    expected: items.length * LATENCY_ENDPOINTS,
    cost,
    load: `${load} → ${load1()}`,
  };
  console.log(`  latency: ${approved.length} approved, ${arrivals.length} deliveries; event to delivery ${spread(values)}`);
  return reading;
}

// ---- 4. the write route with and without endpoints ----

interface WriteReading {
  /** The workers paused (SIGSTOP): the events are written, nothing fans them out; the route's own cost. */
  pausedPlain: Measurement;
  pausedHooked: Measurement;
  health: Measurement;
  plain: Measurement;
  hooked: Measurement;
  eventsHooked: number;
  eventsPlain: number;
  exhausted: number;
  load: string;
}

/** Hands out a workspace's ready items, each once, across every reading that approves them. */
interface ItemCursor {
  ids: string[];
  next: number;
}

function approveSpec(rig: Rig, ws: Workspace, items: ItemCursor, label: string, overrun: { n: number }): LoadSpec {
  const prefix = new URL(rig.api.baseUrl).pathname;
  const ids = items.ids;
  return {
    label,
    url: `${rig.api.baseUrl}/characters/${ws.characterId}/content/${ids[0]}/approve`,
    method: 'POST',
    headers: { authorization: `Bearer ${ws.owner.token}` },
    setupRequest: (req) => {
      if (items.next >= ids.length) overrun.n += 1;
      const id = ids[Math.min(items.next++, ids.length - 1)];
      return { ...req, method: 'POST', path: `${prefix}/characters/${ws.characterId}/content/${id}/approve` };
    },
  };
}

/** Waits until no delivery is pending or being sent and no outbox event is open. */
async function quiet(rig: Rig): Promise<void> {
  const until = Date.now() + PHASE_TIMEOUT_MS;
  for (;;) {
    const { rows } = await rig.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending', 'delivering')) + (SELECT count(*) FROM outbox_events WHERE done_at IS NULL AND type = 'content.approved') AS n`,
    );
    if (Number(rows[0].n) === 0) return;
    if (Date.now() > until) throw new Error(`${rows[0].n} deliveries or events still open after ${PHASE_TIMEOUT_MS / 1000} s`);
    await sleep(100);
  }
}

async function writeRoute(rig: Rig, settings: BenchSettings): Promise<WriteReading> {
  const plainIds = await copyItems(rig.db, rig.plain, OVERHEAD_ITEMS, 'ready', 'write');
  const hookedIds = await copyItems(rig.db, rig.hooked, OVERHEAD_ITEMS, 'ready', 'write');
  const [plainItems, hookedItems]: ItemCursor[] = [{ ids: plainIds, next: 0 }, { ids: hookedIds, next: 0 }];
  const countEvents = async (ws: Workspace) =>
    (await rig.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox_events WHERE workspace_id = $1 AND payload->>'contentId' = ANY($2)`, [ws.owner.workspaceId, ws === rig.plain ? plainIds : hookedIds])).rows[0].n;
  const sessions = await rig.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  const cost = new CpuCost({
    api: { pids: [rig.api.pid] },
    workers: { pids: rig.workers.map((w) => w.pid) },
    pg: { pids: sessions.rows.map((r) => r.pid) },
    redis: { comm: 'redis-server' },
  });
  const overrun = { n: 0 };
  const opts = { connections: settings.connections, durationSeconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds };
  const load = load1();
  const stopWorkers = (signal: 'SIGSTOP' | 'SIGCONT') => rig.workers.forEach((w) => process.kill(w.pid, signal));
  // Paused only with nothing in flight: a worker stopped between its send and its record would
  // time the attempt out when resumed and send it again (a duplicate the receiver did not cause).
  await quiet(rig);
  console.log(`  write route, workers paused: POST …/approve without and with endpoints, in turns (load ${load})`);
  stopWorkers('SIGSTOP');
  const [pausedPlain, pausedHooked] = await measureInTurns(
    [
      approveSpec(rig, rig.plain, plainItems, 'POST …/approve, no endpoints, workers paused', overrun),
      approveSpec(rig, rig.hooked, hookedItems, `POST …/approve, ${ENDPOINTS} endpoints, workers paused`, overrun),
    ],
    opts,
    settings.rounds,
    cost,
  ).finally(() => stopWorkers('SIGCONT'));
  console.log(`  write route: GET /health and POST …/approve without and with endpoints, in turns, ${settings.rounds} rounds at ${opts.connections} connections, the workers running (load ${load1()})`);
  const [health, plain, hooked] = await measureInTurns(
    [
      { label: 'GET /health', url: `${rig.api.baseUrl}/health` },
      approveSpec(rig, rig.plain, plainItems, 'POST …/approve, workspace without endpoints', overrun),
      approveSpec(rig, rig.hooked, hookedItems, `POST …/approve, workspace with ${ENDPOINTS} endpoints`, overrun),
    ],
    opts,
    settings.rounds,
    cost,
  );
  assertAlive(rig, 'the write-route reading');
  return { pausedPlain, pausedHooked, health, plain, hooked, eventsHooked: await countEvents(rig.hooked), eventsPlain: await countEvents(rig.plain), exhausted: overrun.n, load: `${load} → ${load1()}` };
}

// ---- report ----

function cpuTable(ms: Measurement[]): string {
  const parts = ['api', 'workers', 'pg', 'redis', 'bench'];
  const rows = ms.map((m) => [m.label, ...parts.map((p) => `${((100 * (m.cpuMs?.[p] ?? 0)) / (m.durationSeconds * 1000)).toFixed(0)}% / ${(((m.cpuMs?.[p] ?? 0) * 1000) / Math.max(1, m.requests)).toFixed(0)}`)]);
  const header = ['CPU: % of one cpu / µs per request', 'api', 'workers (both)', 'pg (this db)', 'redis', 'bench'];
  return table(header, rows, header.map((_, i) => i > 0));
}

interface Readings {
  drain: DrainReading;
  latency: LatencyReading;
  write: WriteReading;
  duplicates: number[];
  signatures: { verified: number; failed: number };
  statuses: Record<string, number>;
  badAttempts: number;
}

function summary(r: Readings): string {
  const { drain: d, latency: l, write: w } = r;
  const perRound = (m: Measurement) => (m.rounds ?? []).map((x) => x.toFixed(0)).join(', ');
  const rows = [
    [`drain: ${DRAIN_EVENTS * ENDPOINTS} deliveries`, `${d.seconds.toFixed(2)} s from the insert to the last arrival: ${d.m.rps.toFixed(0)}/s (${d.steadyRate.toFixed(0)}/s between the 10th and 90th percentile arrivals)`],
    ['  first arrival / all fanned out', `${d.firstMs} ms / ${d.fannedOutMs} ms after the insert`],
    ['  CPU during the drain', d.cost.cpu],
    ['  CPU per delivery', cpuPer(d.cost, d.m.requests)],
    ['  reads of webhook_deliveries', scansPer(d.cost, d.m.requests)],
    [`latency at ${LATENCY_RATE} events/s: event to delivery`, `${spread(l.values)} (${l.delivered} of ${l.expected} deliveries)`],
    ['  event → deliveries written (fan-out)', spread(l.toFanOut)],
    ['  deliveries written → arrival (claim + send)', spread(l.fanOutToArrival)],
    ['  the route at that rate: answer p50 / p99', `${l.answers.p50} / ${l.answers.p99} ms, ${JSON.stringify(l.answers.statusCodes)}`],
    ['  CPU during the latency reading', l.cost.cpu],
    ['  CPU per delivery', cpuPer(l.cost, l.delivered)],
    ['write route without endpoints', `${w.plain.rps.toFixed(0)}/s (${perRound(w.plain)} per round), p50 / p99 ${w.plain.p50} / ${w.plain.p99} ms; ${w.eventsPlain} outbox rows written`],
    [`write route with ${ENDPOINTS} endpoints`, `${w.hooked.rps.toFixed(0)}/s (${perRound(w.hooked)} per round), p50 / p99 ${w.hooked.p50} / ${w.hooked.p99} ms; ${w.eventsHooked} events written`],
    ['write route, workers paused: with / without endpoints', `${w.pausedHooked.rps.toFixed(0)}/s / ${w.pausedPlain.rps.toFixed(0)}/s: ${((100 * w.pausedHooked.rps) / Math.max(1, w.pausedPlain.rps)).toFixed(0)}% (judged: the outbox row in the route's transaction)`],
    ['write route, workers running: with / without endpoints', `${((100 * w.hooked.rps) / Math.max(1, w.plain.rps)).toFixed(0)}% (not judged: the fan-out's CPU shares the same two cores)`],
    ['GET /health beside them', `${w.health.rps.toFixed(0)}/s (${perRound(w.health)} per round)`],
    ['duplicates per endpoint (webhook-ids arriving twice)', r.duplicates.join(', ')],
    ['signatures verified (standardwebhooks, a sample)', `${r.signatures.verified} verified, ${r.signatures.failed} failed`],
    ['deliveries by status at the end; attempts not 204', `${JSON.stringify(r.statuses)}; ${r.badAttempts}`],
    ['load average (1 min): drain / latency / write route', `${d.load} / ${l.load} / ${w.load}`],
  ];
  return [cpuTable([w.pausedPlain, w.pausedHooked, w.health, w.plain, w.hooked]), '', table(['webhooks reading', 'figure'], rows, [false, false])].join('\n');
}

function targets(r: Readings): Target[] {
  const { drain: d, latency: l, write: w } = r;
  const dups = r.duplicates.reduce((a, b) => a + b, 0);
  const writeRatio = ratioTarget(w.pausedHooked, w.pausedPlain, TARGET_WRITE_RATIO, `approve route with the outbox row in its transaction (${ENDPOINTS} endpoints) >= ${TARGET_WRITE_RATIO * 100}% of the route without`);
  return [
    { goal: `${DRAIN_EVENTS} events x ${ENDPOINTS} endpoints drained at >= ${TARGET_DELIVERIES_PER_S} deliveries/s by 2 workers`, actual: `${d.m.rps.toFixed(0)}/s`, pass: d.m.rps >= TARGET_DELIVERIES_PER_S, note: `${d.seconds.toFixed(1)} s` },
    {
      goal: `event to delivery p99 < ${TARGET_P99_MS} ms at ${LATENCY_RATE} events/s (open loop)`,
      actual: `${l.m.p99} ms`,
      pass: l.m.p99 < TARGET_P99_MS && l.delivered === l.expected && l.answers.non2xx === 0 && l.answers.errors === 0,
      note: `p50 ${l.m.p50} ms; ${l.delivered} of ${l.expected} delivered`,
    },
    { goal: 'no duplicate delivery to a healthy receiver; sampled signatures verify', actual: `${dups} duplicate(s)`, pass: dups === 0 && r.signatures.failed === 0 && r.signatures.verified > 0, note: `${r.signatures.verified} signatures verified` },
    w.exhausted > 0 ? { ...writeRatio, pass: false, note: `${w.exhausted} requests ran out of ready items (raise OVERHEAD_ITEMS)` } : writeRatio,
  ];
}

async function measureAll(rig: Rig, settings: BenchSettings): Promise<ScenarioResult> {
  const drained = await drain(rig);
  const lat = await latency(rig);
  const write = await writeRoute(rig, settings);
  const statuses = await rig.db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status ORDER BY status');
  const bad = await rig.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_attempts WHERE status_code IS DISTINCT FROM 204');
  const signatures = rig.receivers.map((rc, i) => rc.verifySample(rig.secrets[i])).reduce((a, b) => ({ verified: a.verified + b.verified, failed: a.failed + b.failed }));
  const readings: Readings = {
    drain: drained,
    latency: lat,
    write,
    duplicates: rig.receivers.map((rc) => rc.duplicates()),
    signatures,
    statuses: Object.fromEntries(statuses.rows.map((s) => [s.status, s.n])),
    badAttempts: bad.rows[0].n,
  };
  return {
    measurements: [write.pausedPlain, write.pausedHooked, write.health, write.plain, write.hooked, lat.answers, lat.m, drained.m],
    targets: targets(readings),
    summary: summary(readings),
  };
}

export const webhooks: Scenario = {
  name: 'webhooks',
  description: `outbound webhooks: ${DRAIN_EVENTS} events (inserted with the Outbox's INSERT) to ${ENDPOINTS} local receivers drained by 2 workers, the approve route at ${LATENCY_RATE} events/s (event to delivery), duplicates, and the approve route with vs without endpoints; 1 API + 2 workers`,
  async run(settings: BenchSettings): Promise<ScenarioResult> {
    const backing = await createBacking(settings, 'webhooks');
    const receivers: Receiver[] = [];
    const processes: BenchProcess[] = [];
    const db = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    try {
      await db.connect();
      for (let i = 0; i < ENDPOINTS; i++) receivers.push(await Receiver.start(`hook-${i + 1}`));
      const env = { ...backing.env, ...ENV };
      const api = await startApi(env);
      processes.push(api);
      processes.push(await startWorker(env), await startWorker(env));
      const client = new ApiClient(api.baseUrl);
      const admin = await adminToken(client);
      const [hooked, plain] = await Promise.all([seedWorkspace(client, admin, 'hooked'), seedWorkspace(client, admin, 'plain')]);
      // After the seed items: the endpoints see only the bench's events.
      const endpoints = await createEndpoints(client, hooked.owner, receivers);
      return await measureAll({ api, workers: processes.slice(1), client, db, receivers, secrets: endpoints.secrets, endpointIds: endpoints.ids, hooked, plain }, settings);
    } finally {
      reportProblems(processes);
      await Promise.all(processes.map((p) => p.stop()));
      await db.end().catch(() => undefined);
      await Promise.all(receivers.map((r) => r.close()));
      await backing.release();
    }
  },
};
