import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { api, grantCredits, loginAdmin, registerUser, type TestUser } from '../../helpers/api.js';
import { waitFor, type RunningProcess, type TestServer } from '../../helpers/server.js';

/** One answered (or timed-out: status 0) request of the load. */
export interface Sample {
  at: number;
  ms: number;
  status: number;
  code?: string;
  retryAfter?: string;
}

/** A request that has not answered after this long is recorded as status 0 (a hang). */
const REQUEST_TIMEOUT_MS = 5_000;

/**
 * A bounded loop of signed-in reads (`/auth/me`: token, rate-limit counter in Redis, rows in
 * PostgreSQL) from `concurrency` clients, until `stop()` or `maxRequests`.
 */
export function startReadLoad(server: TestServer, user: TestUser, concurrency = 4, maxRequests = 4_000) {
  const samples: Sample[] = [];
  let stopped = false;
  const one = async (): Promise<void> => {
    const started = Date.now();
    try {
      const res = await request(server.url).get('/auth/me').set(user.auth).timeout({ response: REQUEST_TIMEOUT_MS, deadline: REQUEST_TIMEOUT_MS });
      samples.push({ at: started, ms: Date.now() - started, status: res.status, code: res.body?.code, retryAfter: res.headers['retry-after'] });
    } catch {
      samples.push({ at: started, ms: Date.now() - started, status: 0 });
    }
  };
  const clients = Array.from({ length: concurrency }, async () => {
    while (!stopped && samples.length < maxRequests) {
      await one();
      // A client that meets a 503 waits a little before the next request, as a client would.
      if (samples.at(-1)?.status !== 200) await new Promise((r) => setTimeout(r, 20));
    }
  });
  return {
    samples,
    async stop(): Promise<Sample[]> {
      stopped = true;
      await Promise.all(clients);
      return samples;
    },
  };
}

/** A user with credits and a character, ready to order image jobs. */
export async function jobCustomer(server: TestServer): Promise<{ user: TestUser; character: string }> {
  const user = await registerUser(server);
  await grantCredits(server, await loginAdmin(server), user.workspace.id, 500);
  const res = await api(server).post('/characters').set(user.auth).send({ name: 'Outage', niche: 'travel' });
  if (res.status !== 201) throw new Error(`character: ${res.status} ${JSON.stringify(res.body)}`);
  return { user, character: res.body.character.id };
}

/** Orders one image job; answers its id when accepted, else the refusal's status. */
export async function orderJob(server: TestServer, customer: { user: TestUser; character: string }): Promise<{ status: number; jobId?: string; retryAfter?: string; ms: number }> {
  const started = Date.now();
  const res = await api(server)
    .post('/content/generate')
    .set(customer.user.auth)
    .send({ character_id: customer.character, platform: 'instagram', prompt: 'Harbour at dawn', type: 'single' })
    .timeout({ response: REQUEST_TIMEOUT_MS, deadline: REQUEST_TIMEOUT_MS })
    .catch(() => undefined);
  return { status: res?.status ?? 0, jobId: res?.status === 201 ? res.body.job.id : undefined, retryAfter: res?.headers['retry-after'], ms: Date.now() - started };
}

/** The status of each job in `ids`. */
export async function jobStatuses(server: TestServer, user: TestUser, ids: string[]): Promise<string[]> {
  return Promise.all(ids.map(async (id) => (await api(server).get(`/jobs/${id}`).set(user.auth)).body?.job?.status ?? 'unknown'));
}

/** Every line a process wrote that is not one JSON object. */
export function nonJsonLines(proc: RunningProcess): string[] {
  return proc.output
    .join('')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => {
      try {
        const v: unknown = JSON.parse(line);
        return typeof v !== 'object' || v === null;
      } catch {
        return true;
      }
    });
}

/** The JSON lines of a process, parsed (non-JSON lines skipped). */
export function jsonLines(proc: RunningProcess): Array<Record<string, unknown>> {
  return proc.output
    .join('')
    .split('\n')
    .flatMap((line): Array<Record<string, unknown>> => {
      try {
        const v = JSON.parse(line) as Record<string, unknown> | null;
        return typeof v === 'object' && v !== null ? [v] : [];
      } catch {
        return [];
      }
    });
}

/** Times `/health/ready` from send to answer. */
export async function timedReady(server: TestServer): Promise<{ status: number; ms: number; code?: string; retryAfter?: string }> {
  const started = Date.now();
  const res = await request(server.url).get('/health/ready').timeout({ response: REQUEST_TIMEOUT_MS, deadline: REQUEST_TIMEOUT_MS }).catch(() => undefined);
  return { status: res?.status ?? 0, ms: Date.now() - started, code: res?.body?.code, retryAfter: res?.headers['retry-after'] };
}

/** With FAULT_LOG_DIR set, writes each process's output there (`<name>.log`) to read after a run. */
export function keepLogs(procs: Record<string, RunningProcess | undefined>, fault = 'fault'): void {
  const dir = process.env.FAULT_LOG_DIR;
  if (!dir) return;
  for (const [name, proc] of Object.entries(procs)) if (proc) writeFileSync(join(dir, `${fault}-${name}.log`), proc.output.join(''));
}

/**
 * Stops a service for `outageMs`, asking for readiness and ordering a job every 250 ms meanwhile,
 * starts it again and waits for readiness: what the API answered during the outage, and when.
 */
export async function throughOutage(
  server: TestServer,
  customer: { user: TestUser; character: string },
  service: { stop(): Promise<void>; start(): Promise<void> },
  outageMs: number,
  what: string,
) {
  const stoppedAt = Date.now();
  await service.stop();
  const readiness: Array<Awaited<ReturnType<typeof timedReady>>> = [];
  const orders: Array<Awaited<ReturnType<typeof orderJob>>> = [];
  while (Date.now() - stoppedAt < outageMs) {
    readiness.push(await timedReady(server));
    orders.push(await orderJob(server, customer));
    await new Promise((r) => setTimeout(r, 250));
  }
  await service.start();
  const returnedAt = Date.now();
  await waitFor(async () => (await timedReady(server)).status === 200, 15_000, `readiness after ${what} returned`);
  return { stoppedAt, returnedAt, readyAfterMs: Date.now() - returnedAt, readiness, orders };
}
