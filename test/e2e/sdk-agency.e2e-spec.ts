import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import WebSocket from 'ws';
import {
  createPersonaClient,
  login,
  SessionRefreshError,
  unwrap,
  verifyWebhook,
  waitForJob,
  WebhookVerificationError,
  type Job,
  type PersonaClient,
  type SessionTokens,
  type WebhookEvent,
} from '../../sdk/src/index.js';
import { uniqueEmail } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { tokenFromLink } from '../helpers/mail.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * An agency's integration written against the SDK alone (sdk/src), against the running service:
 * sign up and in, the Agency plan, an API key, a webhook endpoint, a connected platform, then with
 * the key: a character, two generations followed with waitForJob (socket, then polling), publishing,
 * credits; every webhook received is verified with the SDK. Only the mailed link's token and the
 * receiver are the test's own.
 */
const ENV = {
  OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_POLL: '100ms',
  OUTBOX_POLL_MS: '100',
  AUTH_RATE_LIMIT_PER_MINUTE: '1000',
  RATE_LIMIT_MULTIPLIER: '10',
};
const PASSWORD = 'correct-horse-battery';
const ALL_SCOPES = ['characters:read', 'characters:write', 'content:generate', 'content:read', 'content:publish', 'credits:read'] as const;

/** `ws`'s WebSocket, recording every message the server sends into `heard`. */
function recording(heard: Array<Record<string, any>>): typeof WebSocket {
  return class extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on('message', (data: Buffer) => heard.push(JSON.parse(data.toString('utf8'))));
    }
  } as typeof WebSocket;
}

describe('the agency flow through the SDK', () => {
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let receiver: WebhookReceiver;
  let email: string;
  let owner: PersonaClient;
  let workspaceId: string;
  let key: PersonaClient;
  let secret: string;
  let endpointId: string;
  /** The key client's job reads (GET /public/jobs/{id}), to tell the socket path from polling. */
  const jobReads: string[] = [];

  /** Signs up through the open routes and opens the emailed verification link's token. */
  async function signUp(): Promise<void> {
    const anonymous = createPersonaClient({ baseUrl: server.url });
    email = uniqueEmail('sdk');
    unwrap(await anonymous.POST('/auth/register', { body: { email, password: PASSWORD, accept_terms: true, accept_privacy: true } }));
    const link = await waitFor(async () => {
      const { data } = unwrap(await anonymous.GET('/dev/mailbox', { params: { query: { to: email } } }));
      return data.find((m) => m.template === 'account.email_verification_requested')?.links[0];
    }, 15_000, 'the verification mail');
    unwrap(await anonymous.POST('/auth/verify-email', { body: { token: tokenFromLink(link) } }));
  }

  /** The sandbox OAuth round trip, each step a typed call: auth URL → built-in consent → callback. */
  async function connectInstagram(): Promise<void> {
    const platform = 'instagram' as const;
    const { url } = unwrap(await owner.GET('/integrations/{platform}/auth-url', { params: { path: { platform }, query: { redirect: '/settings/integrations' } } }));
    const state = new URL(url).searchParams.get('state')!;
    const consent = await owner.GET('/integrations/{platform}/sandbox-consent', { params: { path: { platform }, query: { state } }, redirect: 'manual' });
    expect(consent.response.status).toBe(302);
    const callback = new URL(consent.response.headers.get('location')!);
    const done = await owner.GET('/integrations/{platform}/callback', { params: { path: { platform }, query: Object.fromEntries(callback.searchParams) }, redirect: 'manual' });
    expect(done.response.status).toBe(302);
    expect(new URL(done.response.headers.get('location')!).searchParams.has('connected')).toBe(true);
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    backing = await createBacking();
    server = await startServer(backing, ENV);
    // Services mode: the API runs no jobs and sends no webhooks; a worker does. Embedded: the API does both.
    // The worker renders the jobs the socket and webhooks carry: their media URLs name the API's public address.
    if (E2E_MODE === 'services') worker = await startWorker(backing, { ...ENV, PUBLIC_URL: `http://127.0.0.1:${server.port}` });

    await signUp();
    owner = await login(server.url, email, PASSWORD);
    workspaceId = unwrap(await owner.GET('/auth/me')).workspace.id;
    const admin = await login(server.url, ADMIN_EMAIL, ADMIN_PASSWORD);
    unwrap(await admin.PATCH('/admin/workspaces/{id}', { params: { path: { id: workspaceId } }, body: { plan: 'agency' } }));
    unwrap(await admin.POST('/admin/workspaces/{id}/credits', { params: { path: { id: workspaceId } }, body: { amount: 200, reason: 'sdk e2e' } }));

    // Endpoints are managed with a session (an API key is 401 session_required there).
    const created = unwrap(await owner.POST('/webhooks/endpoints', { body: { url: `${receiver.url}/agency`, event_types: ['*'] } }));
    [secret, endpointId] = [created.secret, created.endpoint.id];
    const { key: psk } = unwrap(await owner.POST('/api-keys', { body: { name: 'sdk e2e', scopes: [...ALL_SCOPES] } }));
    key = createPersonaClient({ baseUrl: server.url, apiKey: psk }, (request) => {
      if (request.url.includes('/public/jobs/')) jobReads.push(request.url);
      return fetch(request);
    });
    await connectInstagram();
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await server?.stop();
    await backing?.cleanup();
    await receiver?.close();
  });

  it('creates a character, generates twice (waitForJob over the socket, then by polling), publishes, reads credits, and verifies every webhook', async () => {
    const { plan, balance: before } = unwrap(await key.GET('/public/credits'));
    expect(plan).toBe('agency');
    // Autopilot approves what it generates, so the item can be published without a review.
    const { character } = unwrap(await key.POST('/public/characters', { body: { name: 'SDK Nova', niche: 'travel', settings: { autopilot: true } } }));
    expect(character.id).toMatch(/^char_/);
    const order = { character_id: character.id, platform: 'instagram' as const };

    const first = unwrap(await key.POST('/public/generate', { body: { ...order, prompt: 'Harbour at dawn' } }));
    // Polls are an hour apart: the job can only end through the socket (or the one read once subscribed).
    const heard: Array<Record<string, any>> = [];
    const readsBefore = jobReads.length;
    const viaSocket = await waitForJob(key, first.job.id, { socket: { WebSocket: recording(heard) }, pollMs: 3_600_000, socketPollMs: 3_600_000, timeoutMs: 60_000 });
    expect(viaSocket).toMatchObject({ id: first.job.id, status: 'completed', content_id: first.item.id });
    expect(heard[0]).toMatchObject({ type: 'auth.ok' });
    expect(jobReads.length - readsBefore).toBeLessThanOrEqual(1);
    expect(viaSocket).toEqual(unwrap(await key.GET('/public/jobs/{id}', { params: { path: { id: first.job.id } } })).job);

    const second = unwrap(await key.POST('/public/generate', { body: { ...order, prompt: 'Night market' } }));
    const viaPolling = await waitForJob(key, second.job.id, { socket: false, pollMs: 200, timeoutMs: 60_000 });
    expect(viaPolling).toMatchObject({ id: second.job.id, status: 'completed' });
    // The session client reads the same job through the product route.
    expect(await waitForJob(owner, second.job.id, { socket: false })).toEqual(viaPolling);

    const approved = await waitFor(async () => {
      const { item } = unwrap(await key.GET('/public/content/{id}', { params: { path: { id: first.item.id } } }));
      return item.status === 'approved' ? item : undefined;
    }, 30_000, 'the generated item to be approved');
    expect(approved.id).toBe(first.item.id);
    const published = unwrap(await key.POST('/public/publish', { body: { content_id: first.item.id, platform: 'instagram' } }));
    expect(published.scheduled_post).toMatchObject({ content_id: first.item.id, platform: 'instagram', status: 'published' });

    const { balance: after } = unwrap(await key.GET('/public/credits'));
    expect(after).toBeLessThan(before);

    // Every delivery verifies with the endpoint's secret; its webhook-id is the event's id.
    const wanted = (events: WebhookEvent[]) =>
      events.filter((e) => e.type === 'job.completed').length >= 2 && events.some((e) => e.type === 'content.approved') && events.some((e) => e.type === 'post.published');
    const events = await waitFor(async () => {
      const all = receiver.at('/agency').map((r) => verifyWebhook(secret, r.body, r.headers));
      return wanted(all) ? all : undefined;
    }, 30_000, 'job.completed ×2, content.approved and post.published on the receiver');
    for (const [i, event] of events.entries()) {
      expect(event.id).toBe(receiver.at('/agency')[i].headers['webhook-id']);
      expect(event.workspace_id).toBe(workspaceId);
    }
    const completedJobs = events.filter((e) => e.type === 'job.completed').map((e) => (e.data as Job).id);
    expect(completedJobs).toEqual(expect.arrayContaining([first.job.id, second.job.id]));
    const post = events.find((e) => e.type === 'post.published')!;
    expect(post.data).toMatchObject({ id: published.scheduled_post.id, status: 'published' });

    const delivered: ReceivedWebhook = receiver.at('/agency')[0];
    expect(() => verifyWebhook(secret, delivered.body.replace(workspaceId, 'ws_someone_else'), delivered.headers)).toThrow(WebhookVerificationError);
  }, 180_000);

  it('verifies a delivery with either secret while a rotation overlaps', async () => {
    const rotated = unwrap(await owner.POST('/webhooks/endpoints/{id}/rotate-secret', { params: { path: { id: endpointId } } }));
    expect(rotated.secret).not.toBe(secret);
    const { delivery } = unwrap(await owner.POST('/webhooks/endpoints/{id}/test', { params: { path: { id: endpointId } } }));
    const got = await waitFor(async () => receiver.at('/agency').find((r) => r.headers['webhook-id'] === delivery.event_id), 15_000, 'the test delivery');
    for (const secrets of [secret, rotated.secret, [secret, rotated.secret]]) {
      expect(verifyWebhook(secrets, got.body, got.headers)).toMatchObject({ type: 'webhook.test', data: { endpoint_id: endpointId } });
    }
  });

  it('refreshes an expired access token once for concurrent requests, and reports a reused refresh token as SessionRefreshError', async () => {
    const session = await login(server.url, email, PASSWORD);
    const { refreshToken } = session.auth.tokens()!;
    const onTokens = jest.fn<(t: SessionTokens) => void>();
    // An access token the server refuses (401 unauthorized) beside a valid refresh token.
    const stale = createPersonaClient({ baseUrl: server.url, session: { accessToken: 'expired.access.token', refreshToken, onTokens } });
    const reads = await Promise.all([1, 2, 3].map(() => stale.GET('/auth/me').then(unwrap)));
    expect(reads.map((me) => me.workspace.id)).toEqual([workspaceId, workspaceId, workspaceId]);
    expect(onTokens).toHaveBeenCalledTimes(1);
    expect(stale.auth.tokens()!.refreshToken).not.toBe(refreshToken);

    // The rotated token presented again: the server ends that session, the SDK says so.
    const replay = createPersonaClient({ baseUrl: server.url, session: { accessToken: 'expired.access.token', refreshToken } });
    const error = await replay.GET('/auth/me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionRefreshError);
    expect(error).toMatchObject({ status: 401, code: 'refresh_token_reused' });
  });
});
