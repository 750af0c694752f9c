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
  RATE_LIMIT_MULTIPLIER: '10',
  METRICS_TOKEN: 'e2e-metrics-token-0123456789',
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

  /** The audit actions recorded against an endpoint, oldest first. */
  async function auditOf(user: Auth, workspaceId: string, endpointId: string): Promise<string[]> {
    const res = await api(server).get(`/organizations/${workspaceId}/audit-log`).query({ limit: 200 }).set(user);
    expect(res.status).toBe(200);
    return (res.body.entries as Array<{ action: string; target_id: string }>).filter((e) => e.target_id === endpointId).map((e) => e.action).reverse();
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
    expect(await auditOf(owner.auth, owner.workspace.id, endpoint.id)).toEqual(['webhook.endpoint_created', 'webhook.endpoint_updated', 'webhook.endpoint_updated', 'webhook.endpoint_deleted']);
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

  describe('refusals', () => {
    let endpointId: string;
    let deliveryId: string;
    beforeAll(async () => {
      const created = await createEndpoint(owner.auth, '/refusals');
      endpointId = created.id;
      deliveryId = (await sendTest(owner.auth, endpointId)).id;
      await deliveryOf(owner.auth, endpointId, deliveryId, 'delivered');
    });

    const routes = (id: string, delivery: string) => [
      ['get', '/webhooks/endpoints'],
      ['post', '/webhooks/endpoints'],
      ['get', `/webhooks/endpoints/${id}`],
      ['patch', `/webhooks/endpoints/${id}`],
      ['delete', `/webhooks/endpoints/${id}`],
      ['post', `/webhooks/endpoints/${id}/rotate-secret`],
      ['post', `/webhooks/endpoints/${id}/test`],
      ['get', `/webhooks/endpoints/${id}/deliveries`],
      ['post', `/webhooks/endpoints/${id}/deliveries/${delivery}/retry`],
    ] as const;

    it('answers 401 without a session and plan_required on Starter and Pro, on every route', async () => {
      const [starter, pro] = await Promise.all([registerUser(server), registerUser(server)]);
      await setPlan(server, admin, pro.workspace.id, 'pro');
      for (const [method, path] of routes(endpointId, deliveryId)) {
        expect((await api(server)[method](path).send({})).status).toBe(401);
        for (const user of [starter, pro]) {
          const res = await api(server)[method](path).set(user.auth).send({ url: `${receiver.url}/x`, event_types: ['*'] });
          expect([res.status, res.body.code]).toEqual([403, 'plan_required']);
        }
      }
    });

    it('lets a viewer read but only owners and admins write (insufficient_role)', async () => {
      const [viewer, editor] = await Promise.all([registerUser(server), registerUser(server)]);
      await inviteAndAccept(server, owner.auth, owner.workspace.id, viewer, 'viewer');
      await inviteAndAccept(server, owner.auth, owner.workspace.id, editor, 'editor');
      const asViewer = await switchTo(server, viewer.auth, owner.workspace.id);
      const asEditor = await switchTo(server, editor.auth, owner.workspace.id);
      expect((await api(server).get('/webhooks/endpoints').set(asViewer)).status).toBe(200);
      expect((await api(server).get(`/webhooks/endpoints/${endpointId}`).set(asViewer)).status).toBe(200);
      const listed = await api(server).get(`/webhooks/endpoints/${endpointId}/deliveries`).set(asViewer);
      expect(listed.status).toBe(200);
      expect(listed.body.deliveries.map((d: { id: string }) => d.id)).toContain(deliveryId);
      for (const auth of [asViewer, asEditor]) {
        for (const [method, path] of routes(endpointId, deliveryId).filter(([m]) => m !== 'get')) {
          const res = await api(server)[method](path).set(auth).send({ url: `${receiver.url}/x`, event_types: ['*'] });
          expect([method, path, res.status, res.body.code]).toEqual([method, path, 403, 'insufficient_role']);
        }
      }
      expect((await api(server).get(`/webhooks/endpoints/${endpointId}`).set(owner.auth)).body.endpoint.enabled).toBe(true);
    });

    it("answers 404 for another workspace's endpoint and delivery ids, unknown ids and malformed ones", async () => {
      for (const [method, path] of routes(endpointId, deliveryId).slice(2)) {
        const res = await api(server)[method](path).set(other.auth).send({ description: 'x' });
        expect([method, path, res.status, res.body.code]).toEqual([method, path, 404, 'not_found']);
      }
      for (const [method, path] of [...routes(missingId('whe'), missingId('whd')).slice(2), ...routes('not-an-id', 'nope').slice(2)]) {
        expect([method, path, (await api(server)[method](path).set(owner.auth).send({ description: 'x' })).status]).toEqual([method, path, 404]);
      }
      // A delivery of one endpoint is not found under another of the same workspace.
      const second = await createEndpoint(owner.auth, '/refusals-second');
      expect((await api(server).post(`/webhooks/endpoints/${second.id}/deliveries/${deliveryId}/retry`).set(owner.auth)).status).toBe(404);
      expect((await api(server).get(`/webhooks/endpoints/${endpointId}`).set(owner.auth)).status).toBe(200);
    });

    it('refuses bad bodies with 400: unknown event types, unknown properties, bad and private URLs', async () => {
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ url: `${receiver.url}/x`, event_types: ['job.finished'] }, 'event_types'],
        [{ url: `${receiver.url}/x`, event_types: [] }, 'event_types'],
        [{ url: `${receiver.url}/x`, event_types: ['*', 'job.completed'] }, 'event_types'],
        [{ url: `${receiver.url}/x`, event_types: ['webhook.test'] }, 'event_types'],
        [{ url: `${receiver.url}/x` }, 'event_types'],
        [{ url: `${receiver.url}/x`, event_types: ['*'], secret: 'whsec_mine' }, 'secret'],
        [{ url: 'ftp://127.0.0.1/x', event_types: ['*'] }, 'url'],
        [{ url: 'not a url', event_types: ['*'] }, 'url'],
        [{ url: `http://user:pw@127.0.0.1:${new URL(receiver.url).port}/x`, event_types: ['*'] }, 'url'],
        [{ url: 'http://169.254.169.254/latest/meta-data', event_types: ['*'] }, 'url'],
        [{ url: 'http://10.1.2.3/hook', event_types: ['*'] }, 'url'],
        [{ url: 'http://[::ffff:169.254.169.254]/hook', event_types: ['*'] }, 'url'],
      ];
      for (const [body, field] of bad) {
        const res = await api(server).post('/webhooks/endpoints').set(owner.auth).send(body);
        expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), 400, 'validation_failed']);
        expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      }
      for (const body of [{ url: null }, { enabled: 'yes' }, { event_types: ['nope'] }, { url: 'http://10.0.0.1/' }, { color: 'red' }]) {
        const res = await api(server).patch(`/webhooks/endpoints/${endpointId}`).set(owner.auth).send(body);
        expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      }
      for (const query of [{ status: 'bogus' }, { event_type: 'job.finished' }, { page_size: 101 }, { page: 0 }]) {
        expect((await api(server).get(`/webhooks/endpoints/${endpointId}/deliveries`).query(query).set(owner.auth)).status).toBe(400);
      }
    });

    it('allows 10 endpoints a workspace (403 webhook_endpoint_limit_reached past them)', async () => {
      const user = await agencyUser();
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push((await createEndpoint(user.auth, `/limit-${i}`)).id);
      const over = await api(server).post('/webhooks/endpoints').set(user.auth).send({ url: `${receiver.url}/limit-x`, event_types: ['*'] });
      expect([over.status, over.body.code, over.body.details]).toEqual([403, 'webhook_endpoint_limit_reached', { limit: 10 }]);
      expect((await api(server).delete(`/webhooks/endpoints/${ids[0]}`).set(user.auth)).status).toBe(204);
      await createEndpoint(user.auth, '/limit-again');
    });
  });

  it('sends an event again after 500, 500 and delivers it on the 200, with the same webhook-id each time', async () => {
    receiver.script('/flaky', [{ status: 500, body: 'down' }, { status: 500, body: 'still down' }, { status: 200, body: 'fine' }]);
    const { id, secret } = await createEndpoint(owner.auth, '/flaky');
    const queued = await sendTest(owner.auth, id);
    const got = await receiver.waitFor('/flaky', 3);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([queued.event_id, queued.event_id, queued.event_id]);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    for (const r of got) expect(verified(secret, r).id).toBe(queued.event_id);
    const done = await deliveryOf(owner.auth, id, queued.id, 'delivered');
    expect(done.attempts).toBe(3);
    expect(done.attempt_log.map((a: { status_code: number; response_excerpt: string }) => [a.status_code, a.response_excerpt])).toEqual([[500, 'down'], [500, 'still down'], [200, 'fine']]);
    expect(receiver.at('/flaky')).toHaveLength(3);
  });

  it('disables an endpoint at once when it answers 410, telling the workspace by socket and audit', async () => {
    const socket = await authedSocket(server.wsUrl, owner.token);
    try {
      receiver.script('/gone', [], { status: 410, body: 'gone' });
      const { id } = await createEndpoint(owner.auth, '/gone');
      const queued = await sendTest(owner.auth, id);
      const event = await socket.waitFor((m) => m.type === 'webhook.endpoint_disabled' && m.endpoint.id === id, 15_000);
      expect(event.endpoint).toMatchObject({ id, enabled: false, disabled_reason: 'gone' });
      const failed = await deliveryOf(owner.auth, id, queued.id, 'failed');
      expect([failed.attempts, failed.last_status]).toEqual([1, 410]);
      expect((await api(server).get(`/webhooks/endpoints/${id}`).set(owner.auth)).body.endpoint).toMatchObject({ enabled: false, disabled_reason: 'gone' });
      const test = await api(server).post(`/webhooks/endpoints/${id}/test`).set(owner.auth);
      expect([test.status, test.body.code]).toEqual([409, 'invalid_state_transition']);
      const audit = await api(server).get(`/organizations/${owner.workspace.id}/audit-log`).query({ action: 'webhook.endpoint_disabled', limit: 200 }).set(owner.auth);
      expect((audit.body.entries as Array<Record<string, any>>).find((e) => e.target_id === id)).toMatchObject({ actor_user_id: null, details: { reason: 'gone' } });
      expect(receiver.at('/gone')).toHaveLength(1);
    } finally {
      socket.close();
    }
  });

  it('signs with both secrets while a rotation overlaps: each verifies the delivery', async () => {
    const { id, secret: oldSecret } = await createEndpoint(owner.auth, '/rotation');
    const rotated = await api(server).post(`/webhooks/endpoints/${id}/rotate-secret`).set(owner.auth);
    expect(rotated.status).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    const ends = Date.parse(rotated.body.endpoint.secret_rotation_ends_at);
    expect(Math.abs(ends - (Date.now() + 86_400_000))).toBeLessThan(60_000);
    const read = await api(server).get(`/webhooks/endpoints/${id}`).set(owner.auth);
    expect(read.body.endpoint.secret_rotation_ends_at).toBe(rotated.body.endpoint.secret_rotation_ends_at);
    expect(JSON.stringify(read.body)).not.toContain(newSecret);

    await sendTest(owner.auth, id);
    const [got] = await receiver.waitFor('/rotation', 1);
    expect(got.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verified(newSecret, got).type).toBe('webhook.test');
    expect(verified(oldSecret, got).type).toBe('webhook.test');
    expect(await auditOf(owner.auth, owner.workspace.id, id)).toEqual(['webhook.endpoint_created', 'webhook.secret_rotated', 'webhook.test_sent']);
  });

  it('never follows a redirect: the attempt fails and the target is never called', async () => {
    receiver.script('/redirect', [], { status: 307, location: `${receiver.url}/redirect-target` });
    const { id } = await createEndpoint(owner.auth, '/redirect');
    const queued = await sendTest(owner.auth, id);
    await receiver.waitFor('/redirect', 2);
    const listed = await waitFor(async () => {
      const d = ((await deliveries(owner.auth, id)).deliveries as Array<Record<string, any>>).find((x) => x.id === queued.id);
      return d && d.attempt_log.length >= 2 ? d : null;
    }, 10_000, 'two recorded attempts');
    expect(listed.attempt_log[0]).toMatchObject({ status_code: 307, error: expect.stringMatching(/^redirect not followed/) });
    expect(listed.last_status).toBe(307);
    expect(receiver.at('/redirect-target')).toHaveLength(0);
  });

  it('disables an endpoint whose every attempt failed for WEBHOOK_DISABLE_AFTER, by socket and audit; PATCH enables it again', async () => {
    const user = await agencyUser();
    const socket = await authedSocket(server.wsUrl, user.token);
    try {
      receiver.script('/failing', [], { status: 503, body: 'no' });
      const { id } = await createEndpoint(user.auth, '/failing');
      const queued = await sendTest(user.auth, id);
      const event = await socket.waitFor((m) => m.type === 'webhook.endpoint_disabled' && m.endpoint.id === id, 15_000);
      expect(event.endpoint).toMatchObject({ enabled: false, disabled_reason: 'failing' });
      const got = receiver.at('/failing');
      expect(got.length).toBeGreaterThanOrEqual(2);
      expect(got[got.length - 1].at - got[0].at).toBeGreaterThanOrEqual(1_500);
      await deliveryOf(user.auth, id, queued.id, 'failed');
      const audit = await api(server).get(`/organizations/${user.workspace.id}/audit-log`).query({ action: 'webhook.endpoint_disabled' }).set(user.auth);
      expect(audit.body.entries).toEqual([expect.objectContaining({ target_id: id, actor_user_id: null, details: expect.objectContaining({ reason: 'failing' }) })]);

      receiver.script('/failing', [], { status: 200 });
      const enabled = await api(server).patch(`/webhooks/endpoints/${id}`).set(user.auth).send({ enabled: true });
      expect(enabled.body.endpoint).toMatchObject({ enabled: true, disabled_reason: null });
      const again = await sendTest(user.auth, id);
      await deliveryOf(user.auth, id, again.id, 'delivered');
    } finally {
      socket.close();
    }
  });

  it('lists deliveries newest first, paged and filtered by status and event type', async () => {
    const { id } = await createEndpoint(owner.auth, '/paging');
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push(await sendTest(owner.auth, id));
    for (const d of sent) await deliveryOf(owner.auth, id, d.id, 'delivered');
    const first = await deliveries(owner.auth, id, { page_size: 2 });
    expect([first.page, first.page_size, first.total]).toEqual([1, 2, 3]);
    expect(first.deliveries.map((d: { id: string }) => d.id)).toEqual([sent[2].id, sent[1].id]);
    const second = await deliveries(owner.auth, id, { page_size: 2, page: 2 });
    expect(second.deliveries.map((d: { id: string }) => d.id)).toEqual([sent[0].id]);
    expect((await deliveries(owner.auth, id, { status: 'delivered', event_type: 'webhook.test' })).total).toBe(3);
    expect((await deliveries(owner.auth, id, { status: 'failed' })).total).toBe(0);
    expect((await deliveries(owner.auth, id, { event_type: 'credits.low' })).total).toBe(0);
  });

  it('retries a delivered delivery now, with the same webhook-id; 409 while it is being delivered', async () => {
    const { id, secret } = await createEndpoint(owner.auth, '/retry');
    const queued = await sendTest(owner.auth, id);
    await deliveryOf(owner.auth, id, queued.id, 'delivered');
    const retried = await api(server).post(`/webhooks/endpoints/${id}/deliveries/${queued.id}/retry`).set(owner.auth);
    expect(retried.status).toBe(202);
    expect(retried.body.delivery).toMatchObject({ id: queued.id, status: 'pending', event_id: queued.event_id });
    const got = await receiver.waitFor('/retry', 2);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([queued.event_id, queued.event_id]);
    expect(verified(secret, got[1]).id).toBe(queued.event_id);
    expect((await deliveryOf(owner.auth, id, queued.id, 'delivered')).attempts).toBe(2);

    receiver.script('/retry', [{ status: 200, delayMs: 1_500 }]);
    const slow = await sendTest(owner.auth, id);
    await receiver.waitFor('/retry', 3);
    const busy = await api(server).post(`/webhooks/endpoints/${id}/deliveries/${slow.id}/retry`).set(owner.auth);
    expect([busy.status, busy.body.code]).toEqual([409, 'invalid_state_transition']);
    await deliveryOf(owner.auth, id, slow.id, 'delivered');
    expect(await auditOf(owner.auth, owner.workspace.id, id)).toEqual(['webhook.endpoint_created', 'webhook.test_sent', 'webhook.delivery_retried', 'webhook.test_sent']);
  });

  it('counts attempts by outcome in the metrics of the process that sends them', async () => {
    const res = await api(server).get('/metrics').set({ Authorization: `Bearer ${ENV.METRICS_TOKEN}` });
    expect(res.status).toBe(200);
    const delivered = /^persona_webhook_deliveries_total\{outcome="delivered"\} (\d+)/m.exec(res.text);
    expect(delivered).not.toBeNull();
    expect(res.text).toMatch(/^persona_webhook_attempt_duration_seconds_count \d+/m);
    // Embedded, the API sends (and has sent every delivery above); with services, a worker does and keeps its own counts.
    if (E2E_MODE === 'embedded') expect(Number(delivered![1])).toBeGreaterThan(5);
    else expect(Number(delivered![1])).toBe(0);
  });
});
