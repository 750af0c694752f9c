// @e2e services-only: an API and two workers sharing PostgreSQL + Redis.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, loginAdmin, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { processOwningPort } from '../helpers/socket-owner.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const ENV = {
  OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_POLL: '100ms',
  WEBHOOK_TIMEOUT: '5s',
  WEBHOOK_LEASE: '6s',
  AUTH_RATE_LIMIT_PER_MINUTE: '1000',
  RATE_LIMIT_MULTIPLIER: '10',
};

/** How many times each webhook-id reached `path`. */
function arrivals(receiver: WebhookReceiver, path: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of receiver.at(path)) counts.set(r.headers['webhook-id'], (counts.get(r.headers['webhook-id']) ?? 0) + 1);
  return counts;
}

/**
 * Delivery across worker processes, always on PostgreSQL and Redis (several processes share one
 * database): the API delivers nothing, two workers claim with leases.
 */
describe('webhook delivery by several workers', () => {
  let backing: Backing;
  let server: TestServer;
  const workers: RunningProcess[] = [];
  let receiver: WebhookReceiver;
  let user: TestUser;

  async function queueTests(endpointId: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(20, count - i) }, () => api(server).post(`/webhooks/endpoints/${endpointId}/test`).set(user.auth)),
      );
      for (const res of batch) {
        expect(res.status).toBe(202);
        ids.push(res.body.delivery.event_id as string);
      }
    }
    return ids;
  }

  async function endpoint(path: string): Promise<string> {
    const res = await api(server).post('/webhooks/endpoints').set(user.auth).send({ url: `${receiver.url}${path}`, event_types: ['*'] });
    expect(res.status).toBe(201);
    return res.body.endpoint.id as string;
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    backing = await createBacking({ services: true });
    server = await startServer(backing, ENV);
    workers.push(...(await Promise.all([startWorker(backing, ENV), startWorker(backing, ENV)])));
    user = await registerUser(server);
    await setPlan(server, await loginAdmin(server), user.workspace.id, 'agency');
  }, 90_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), ...workers.map((w) => w.stop())]);
    await backing?.cleanup();
    await receiver?.close();
  });

  it('sends each of 200 events once to a healthy receiver, however the two workers share them', async () => {
    receiver.script('/fleet', [], { status: 200, delayMs: 20 });
    const id = await endpoint('/fleet');
    const events = await queueTests(id, 200);
    await waitFor(async () => arrivals(receiver, '/fleet').size >= 200, 30_000, '200 distinct webhook-ids');
    const delivered = await waitFor(async () => {
      const res = await api(server).get(`/webhooks/endpoints/${id}/deliveries`).query({ status: 'delivered', page_size: 1 }).set(user.auth);
      return res.body.total === 200 ? res.body : null;
    }, 10_000, 'all 200 deliveries recorded delivered');
    expect(delivered.total).toBe(200);
    const counts = arrivals(receiver, '/fleet');
    expect([...counts.keys()].sort()).toEqual([...events].sort());
    expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
  }, 60_000);

  it('loses nothing when the worker holding an attempt is SIGKILLed: that event is sent again, each at most twice', async () => {
    // The 11th request is held open until released: the worker that sent it dies mid-attempt.
    // Deliveries start while events are still being queued, so the wait for it starts first.
    const HELD = 11;
    receiver.script('/kill', [...Array.from({ length: HELD - 1 }, () => ({ status: 200, delayMs: 100 })), { status: 200, held: true }], { status: 200, delayMs: 100 });
    const id = await endpoint('/kill');
    const heldArrival = receiver.waitFor('/kill', HELD, 20_000);
    const queued = queueTests(id, 80);
    queued.catch(() => undefined); // awaited below; a failure here must not go unhandled meanwhile
    const held = (await heldArrival)[HELD - 1];
    const pids = workers.map((w) => w.child.pid!);
    const sender = processOwningPort(held.remotePort, pids);
    expect(pids).toContain(sender);
    const victim = workers.find((w) => w.child.pid === sender)!;
    await victim.stop('SIGKILL');
    receiver.release();
    const events = await queued;
    await waitFor(async () => arrivals(receiver, '/kill').size >= 80, 40_000, '80 distinct webhook-ids after the kill');
    await waitFor(async () => {
      const res = await api(server).get(`/webhooks/endpoints/${id}/deliveries`).query({ status: 'delivered', page_size: 1 }).set(user.auth);
      return res.body.total === 80;
    }, 15_000, 'all 80 deliveries recorded delivered');
    const counts = arrivals(receiver, '/kill');
    expect([...counts.keys()].sort()).toEqual([...events].sort());
    // The held attempt's lease lapsed with its worker and the other worker sent it again, same webhook-id.
    expect(counts.get(held.headers['webhook-id'])).toBe(2);
    expect([...counts.values()].filter((n) => n > 2)).toEqual([]);
  }, 90_000);
});
