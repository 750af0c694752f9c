import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { api, grantCredits, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { inviteAndAccept, switchTo } from '../helpers/invitations.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { authedSocket } from '../helpers/socket.js';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

type Auth = { Authorization: string };

/** Short schedules so retries, failures and disabling happen within seconds. */
const ENV = {
  OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '200ms,400ms,2s',
  WEBHOOK_DISABLE_AFTER: '1500ms',
  WEBHOOK_POLL: '100ms',
  WEBHOOK_TIMEOUT: '2s',
  WEBHOOK_LEASE: '5s',
  OUTBOX_POLL_MS: '100',
  AUTH_RATE_LIMIT_PER_MINUTE: '1000',
};

/** Verifies a received delivery with the `standardwebhooks` package, as a receiver would. */
function verified(secret: string, r: ReceivedWebhook): Record<string, any> {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': r.headers['webhook-id'],
    'webhook-timestamp': r.headers['webhook-timestamp'],
    'webhook-signature': r.headers['webhook-signature'],
  }) as Record<string, any>;
}

describe('outbound webhooks', () => {
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let receiver: WebhookReceiver;
  let admin: Auth;
  let owner: TestUser;
  let other: TestUser;

  async function agencyUser(): Promise<TestUser> {
    const user = await registerUser(server);
    await setPlan(server, admin, user.workspace.id, 'agency');
    return user;
  }

  async function createEndpoint(user: Auth, path: string, body: Record<string, unknown> = {}): Promise<{ id: string; secret: string; body: Record<string, any> }> {
    const res = await api(server).post('/webhooks/endpoints').set(user).send({ url: `${receiver.url}${path}`, event_types: ['*'], ...body });
    if (res.status !== 201) throw new Error(`create endpoint failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.endpoint.id, secret: res.body.secret, body: res.body };
  }

  async function sendTest(user: Auth, endpointId: string): Promise<Record<string, any>> {
    const res = await api(server).post(`/webhooks/endpoints/${endpointId}/test`).set(user);
    expect(res.status).toBe(202);
    return res.body.delivery;
  }

  async function deliveries(user: Auth, endpointId: string, query: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const res = await api(server).get(`/webhooks/endpoints/${endpointId}/deliveries`).query(query).set(user);
    expect(res.status).toBe(200);
    return res.body;
  }

  async function deliveryOf(user: Auth, endpointId: string, deliveryId: string, status: string): Promise<Record<string, any>> {
    return waitFor(async () => {
      const all = (await deliveries(user, endpointId, { page_size: 100 })).deliveries as Array<Record<string, any>>;
      return all.find((d) => d.id === deliveryId && d.status === status);
    }, 15_000, `delivery ${deliveryId} ${status}`);
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    backing = await createBacking();
    server = await startServer(backing, ENV);
    // Services mode: the API runs no jobs and delivers no webhooks; a worker does. Embedded: the API does both.
    if (E2E_MODE === 'services') worker = await startWorker(backing, ENV);
    admin = await loginAdmin(server);
    [owner, other] = await Promise.all([agencyUser(), agencyUser()]);
  });
  afterAll(async () => {
    await worker?.stop();
    await server?.stop();
    await backing?.cleanup();
    await receiver?.close();
  });

  it('creates an endpoint whose secret is shown once, then reads, lists, updates and deletes it', async () => {
    const created = await api(server).post('/webhooks/endpoints').set(owner.auth).send({ url: `${receiver.url}/crud`, description: '  CRM  ', event_types: ['job.completed', 'credits.low'] });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const endpoint = created.body.endpoint;
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whe_/), url: `${receiver.url}/crud`, description: 'CRM', event_types: ['job.completed', 'credits.low'], enabled: true,
      disabled_reason: null, created_at: expect.any(String), updated_at: expect.any(String), secret_rotation_ends_at: null,
    });

    const read = await api(server).get(`/webhooks/endpoints/${endpoint.id}`).set(owner.auth);
    expect(read.status).toBe(200);
    expect(read.body.endpoint).toEqual(endpoint);
    expect(JSON.stringify(read.body)).not.toContain(created.body.secret);
    const list = await api(server).get('/webhooks/endpoints').set(owner.auth);
    expect(list.status).toBe(200);
    expect(list.body.endpoints.map((e: { id: string }) => e.id)).toContain(endpoint.id);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');

    const patched = await api(server).patch(`/webhooks/endpoints/${endpoint.id}`).set(owner.auth).send({ event_types: ['*'], description: 'All', enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body.endpoint).toMatchObject({ event_types: ['*'], description: 'All', enabled: false, disabled_reason: 'manual' });
    const back = await api(server).patch(`/webhooks/endpoints/${endpoint.id}`).set(owner.auth).send({ enabled: true });
    expect(back.body.endpoint).toMatchObject({ enabled: true, disabled_reason: null });

    const audit = await api(server).get(`/organizations/${owner.workspace.id}/audit-log`).query({ limit: 200 }).set(owner.auth);
    const actions = (audit.body.entries as Array<{ action: string; target_id: string }>).filter((e) => e.target_id === endpoint.id).map((e) => e.action);
    expect(actions.sort()).toEqual(['webhook.endpoint_created', 'webhook.endpoint_updated', 'webhook.endpoint_updated']);

    expect((await api(server).delete(`/webhooks/endpoints/${endpoint.id}`).set(owner.auth)).status).toBe(204);
    expect((await api(server).get(`/webhooks/endpoints/${endpoint.id}`).set(owner.auth)).status).toBe(404);
    expect((await api(server).delete(`/webhooks/endpoints/${endpoint.id}`).set(owner.auth)).status).toBe(404);
  });

  it('delivers the test event, signed per Standard Webhooks, and records the attempt', async () => {
    const { id, secret } = await createEndpoint(owner.auth, '/test-event');
    const queued = await sendTest(owner.auth, id);
    expect(queued).toMatchObject({ id: expect.stringMatching(/^whd_/), endpoint_id: id, event_type: 'webhook.test', status: 'pending', attempts: 0 });
    const [got] = await receiver.waitFor('/test-event', 1);
    expect(got.method).toBe('POST');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('PersonaStudio-Webhooks/1');
    expect(got.headers['webhook-id']).toBe(queued.event_id);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const body = verified(secret, got);
    expect(body).toEqual({ id: queued.event_id, type: 'webhook.test', created_at: expect.any(String), workspace_id: owner.workspace.id, data: { endpoint_id: id } });
    expect(() => verified(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got)).toThrow();

    const done = await deliveryOf(owner.auth, id, queued.id, 'delivered');
    expect(done).toMatchObject({ attempts: 1, last_status: 200, last_error: null, delivered_at: expect.any(String), next_attempt_at: null });
    expect(done.attempt_log).toEqual([{ attempt: 1, started_at: expect.any(String), duration_ms: expect.any(Number), status_code: 200, response_excerpt: 'ok', error: null }]);
  });

  it('delivers credits.low, recorded by billing in the transaction that spent the credits', async () => {
    const user = await agencyUser();
    const { id, secret } = await createEndpoint(user.auth, '/credits', { event_types: ['credits.low'] });
    const ignored = await createEndpoint(user.auth, '/credits-ignored', { event_types: ['job.completed'] });
    await grantCredits(server, admin, user.workspace.id, -45);
    const [got] = await receiver.waitFor('/credits', 1);
    const body = verified(secret, got);
    expect(body).toMatchObject({ id: got.headers['webhook-id'], type: 'credits.low', workspace_id: user.workspace.id, created_at: expect.any(String) });
    expect(body.id).toMatch(/^evt_/);
    expect(typeof body.data).toBe('object');
    const listed = await deliveries(user.auth, id, { event_type: 'credits.low' });
    expect(listed.total).toBeGreaterThanOrEqual(1);
    expect((await deliveries(user.auth, ignored.id)).total).toBe(0);
    expect(receiver.at('/credits-ignored')).toHaveLength(0);
  });
});
