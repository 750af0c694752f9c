import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { jobCustomer, keepLogs, jobStatuses, jsonLines, nonJsonLines, orderJob, startReadLoad, throughOutage } from './support/outage-load.js';
import { createPrivateBacking, startPrivatePostgres, startPrivateRedis, type PrivateService } from './support/private-services.js';

const ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000', LOG_LEVEL: 'info' };
/** How long PostgreSQL stays down (the run: 10 s). */
const OUTAGE_MS = 10_000;
/** Jobs accepted just before the stop; one worker taking one at a time leaves most of them waiting. */
const BACKLOG = 12;

/** Warnings and errors a process logged between `from` and `to`. */
function alarmsBetween(proc: RunningProcess, from: number, to: number) {
  return jsonLines(proc).filter((l) => (l.level === 'warn' || l.level === 'error') && Date.parse(String(l.time)) >= from && Date.parse(String(l.time)) <= to);
}

/**
 * PostgreSQL stopped 10 s under load and with a backlog (issue 25, item 5): the API answers 503
 * `service_unavailable` with Retry-After instead of 500, each process logs one warning for the
 * outage instead of one error per request, every log line stays JSON, readiness says 503, and the
 * backlog accepted before the stop drains within 20 s of the database's return.
 */
describe('fault: PostgreSQL stopped for 10 s under load with a backlog', () => {
  let postgres: PrivateService;
  let redis: PrivateService;
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess;

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    backing = await createPrivateBacking(postgres, redis);
    server = await startServer(backing, ENV);
    worker = await startWorker(backing, { ...ENV, JOB_CONCURRENCY: '1' });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), worker?.stop()]);
    keepLogs({ api: server, worker }, 'postgres-outage');
    await backing?.cleanup();
    await Promise.all([redis?.cleanup(), postgres?.cleanup()]);
  });

  it('answers 503 with Retry-After, logs one warning per process, and drains the backlog within 20 s of the return', async () => {
    const customer = await jobCustomer(server);
    const load = startReadLoad(server, customer.user);
    await waitFor(async () => load.samples.filter((s) => s.status === 200).length >= 20, 20_000, 'load under way');

    const backlog = (await Promise.all(Array.from({ length: BACKLOG }, () => orderJob(server, customer)))).map((o) => o.jobId!);
    expect(backlog.every(Boolean)).toBe(true);
    const { stoppedAt, returnedAt, readyAfterMs, readiness, orders: outageOrders } = await throughOutage(server, customer, postgres, OUTAGE_MS, 'PostgreSQL');
    const samples = await load.stop();
    const everyJob = [...backlog, ...outageOrders.flatMap((o) => (o.jobId ? [o.jobId] : []))];
    let statuses: string[] = [];
    await waitFor(async () => (statuses = await jobStatuses(server, customer.user, everyJob)).every((s) => s === 'completed'), 30_000, 'the backlog drained').catch((err: unknown) => {
      throw new Error(`${String(err)}: ${JSON.stringify(statuses)}`);
    });
    const drainedAfterMs = Date.now() - returnedAt;

    const during = samples.filter((s) => s.at >= stoppedAt && s.at < returnedAt);
    const refused = during.filter((s) => s.status !== 200);
    const apiAlarms = alarmsBetween(server, stoppedAt, returnedAt + 2_000);
    const workerAlarms = alarmsBetween(worker, stoppedAt, returnedAt + 2_000);
    process.stdout.write(`${JSON.stringify({
      fault: 'postgres-outage', requests: samples.length, during_outage: during.length, refused_503: refused.filter((s) => s.status === 503).length,
      max_ms: Math.max(...samples.map((s) => s.ms)), ready_max_ms: Math.max(...readiness.map((r) => r.ms)),
      ready_statuses: [...new Set(readiness.map((r) => r.status))], order_statuses: [...new Set(outageOrders.map((o) => o.status))],
      ready_again_ms: readyAfterMs, backlog: everyJob.length, drained_after_return_ms: drainedAfterMs,
      api_alarms: apiAlarms.map((l) => l.msg), worker_alarms: workerAlarms.map((l) => l.msg),
    })}\n`);

    expect(refused.length).toBeGreaterThan(0);
    expect(refused.filter((s) => !(s.status === 503 && s.code === 'service_unavailable' && Number(s.retryAfter) > 0))).toEqual([]);
    expect(samples.filter((s) => s.status === 500)).toEqual([]);
    expect(readiness.filter((r) => !(r.status === 503 && r.code === 'service_unavailable' && r.ms < 1_000))).toEqual([]);
    expect(outageOrders.filter((o) => o.status !== 503 || !(Number(o.retryAfter) > 0))).toEqual([]);
    // One warning per outage per process: the outage log's, naming the database; no `unhandled error`.
    expect(apiAlarms.map((l) => [l.msg, l.dependency])).toEqual([['dependency unavailable', 'database']]);
    expect(workerAlarms.map((l) => [l.msg, l.dependency])).toEqual([['dependency unavailable', 'database']]);
    // Every line each process wrote, before, during and after the outage, is one JSON object: no raw driver trace.
    expect(nonJsonLines(server)).toEqual([]);
    expect(nonJsonLines(worker)).toEqual([]);
    expect(drainedAfterMs).toBeLessThan(20_000);
  });
});
