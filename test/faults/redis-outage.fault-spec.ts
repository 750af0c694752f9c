import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { jobCustomer, keepLogs, jobStatuses, jsonLines, nonJsonLines, orderJob, startReadLoad, throughOutage } from './support/outage-load.js';
import { createPrivateBacking, startPrivatePostgres, startPrivateRedis, type PrivateService } from './support/private-services.js';

const ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000', LOG_LEVEL: 'info' };
/** How long Redis stays down. */
const OUTAGE_MS = 6_000;

/**
 * Redis stopped under load (issue 25, item 4): requests fail fast with 503 `service_unavailable`
 * and Retry-After instead of hanging, readiness says 503 within a second, every log line stays
 * JSON, and once Redis is back (empty: no persistence) every job accepted before or after is done.
 */
describe('fault: Redis stopped and restarted under load', () => {
  let postgres: PrivateService;
  let redis: PrivateService;
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess;

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    backing = await createPrivateBacking(postgres, redis);
    server = await startServer(backing, ENV);
    worker = await startWorker(backing, ENV);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), worker?.stop()]);
    keepLogs({ api: server, worker }, 'redis-outage');
    await backing?.cleanup();
    await Promise.all([redis?.cleanup(), postgres?.cleanup()]);
  });

  it('answers 503 with Retry-After while Redis is away, never hangs, and finishes every accepted job after', async () => {
    const customer = await jobCustomer(server);
    const accepted: string[] = [];
    for (let i = 0; i < 3; i++) accepted.push((await orderJob(server, customer)).jobId!);
    expect(accepted.every(Boolean)).toBe(true);

    const load = startReadLoad(server, customer.user);
    await waitFor(async () => load.samples.filter((s) => s.status === 200).length >= 20, 20_000, 'load under way');

    // Readiness: 503 within a second, every time it is asked during the outage.
    const { stoppedAt, returnedAt: restartedAt, readyAfterMs: backAfterMs, readiness, orders: outageOrders } = await throughOutage(server, customer, redis, OUTAGE_MS, 'Redis');
    await waitFor(async () => load.samples.filter((s) => s.at > Date.now() - 1_000 && s.status === 200).length >= 5, 15_000, 'reads succeeding again');
    const samples = await load.stop();

    for (let i = 0; i < 3; i++) accepted.push((await orderJob(server, customer)).jobId!);
    for (const o of outageOrders) if (o.jobId) accepted.push(o.jobId);
    expect(accepted.every(Boolean)).toBe(true);
    const drainStarted = Date.now();
    let statuses: string[] = [];
    await waitFor(async () => (statuses = await jobStatuses(server, customer.user, accepted)).every((s) => s === 'completed'), 30_000, 'every accepted job completed').catch((err: unknown) => {
      throw new Error(`${String(err)}: ${JSON.stringify(statuses)}`);
    });
    const drainMs = Date.now() - drainStarted;

    const during = samples.filter((s) => s.at >= stoppedAt && s.at < restartedAt);
    const refused = during.filter((s) => s.status !== 200);
    process.stdout.write(`${JSON.stringify({
      fault: 'redis-outage', requests: samples.length, during_outage: during.length, refused_503: refused.filter((s) => s.status === 503).length,
      max_ms: Math.max(...samples.map((s) => s.ms)), max_ms_during: Math.max(...during.map((s) => s.ms)),
      ready_max_ms: Math.max(...readiness.map((r) => r.ms)), ready_statuses: [...new Set(readiness.map((r) => r.status))],
      order_statuses: outageOrders.map((o) => o.status), order_max_ms: Math.max(...outageOrders.map((o) => o.ms)),
      ready_again_ms: backAfterMs, jobs: accepted.length, drain_ms: drainMs,
      api_outage_warnings: jsonLines(server).filter((l) => l.msg === 'dependency unavailable').length,
      worker_outage_warnings: jsonLines(worker).filter((l) => l.msg === 'dependency unavailable').length,
    })}\n`);

    // No request hangs: none over 2 s, before, during or after.
    expect(samples.filter((s) => s.ms > 2_000)).toEqual([]);
    // While Redis is away the refusals are 503 service_unavailable with Retry-After, never a 500.
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.filter((s) => !(s.status === 503 && s.code === 'service_unavailable' && Number(s.retryAfter) > 0))).toEqual([]);
    expect(samples.filter((s) => s.status >= 500 && s.status !== 503)).toEqual([]);
    // Readiness answers 503 within a second throughout (the first may still see Redis going).
    expect(readiness.slice(1).filter((r) => !(r.status === 503 && r.code === 'service_unavailable' && r.ms < 1_000))).toEqual([]);
    expect(outageOrders.filter((o) => o.ms > 2_000 || (o.status !== 201 && !(o.status === 503 && Number(o.retryAfter) > 0)))).toEqual([]);
    // Every line each process wrote is one JSON object: no ioredis trace.
    expect(nonJsonLines(server)).toEqual([]);
    expect(nonJsonLines(worker)).toEqual([]);
    // One warning for the outage per process, not a line per failed command or reconnection.
    for (const proc of [server, worker]) expect(jsonLines(proc).filter((l) => l.level === 'warn' && l.msg === 'dependency unavailable').map((l) => l.dependency)).toEqual(['redis']);
  });
});
