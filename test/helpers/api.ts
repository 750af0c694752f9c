import { expect } from '@jest/globals';
import request from 'supertest';
import { mailboxLink, tokenFromLink } from './mail.js';
import { validatorFor } from './openapi-validator.js';
import type { TestServer } from './server.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from './server.js';

/**
 * Every answer an e2e file (test/e2e) receives is checked against the served OpenAPI document (see
 * `validated`); the fault suites (test/faults), whose outages answer what no route documents yet,
 * are not. E2E_VALIDATE_RESPONSES=1 checks every file's answers, =0 none.
 */
function validationOn(): boolean {
  const setting = process.env.E2E_VALIDATE_RESPONSES;
  if (setting === '1' || setting === '0') return setting === '1';
  return (expect.getState().testPath ?? '').includes('/test/e2e/');
}

/** A drift between an answer and the OpenAPI document, named by operation and status. */
export class OpenApiDriftError extends Error {
  override name = 'OpenApiDriftError';
}

type Agent = ReturnType<typeof request>;
type Test = ReturnType<Agent['get']>;
type EndCallback = Parameters<Test['end']>[0];
const VERBS = ['get', 'post', 'put', 'patch', 'delete', 'del', 'head', 'options'] as const;

/**
 * supertest against `base`, with every answer checked against the document the server serves
 * (status documented for the operation, content type, JSON body schema) before the caller sees it:
 * a drift fails the request with an OpenApiDriftError. Awaiting, `.then` and `.end` all go through
 * `end`, so the tests call it as plain supertest.
 */
function validated(base: string): Agent {
  const agent = request(base);
  for (const verb of VERBS) {
    const original = agent[verb];
    const make = (url: string): Test => original.call(agent, url);
    (agent as unknown as Record<string, (url: string) => Test>)[verb] = (url: string) => {
      const test = make(url);
      const end = test.end.bind(test);
      test.end = ((fn: EndCallback) => end((err, res) => {
        if (!res || !validationOn()) return fn?.(err, res);
        const { method, url: target } = test as unknown as { method: string; url: string };
        const body: unknown = res.body;
        const hasBody = (res.text ?? '').length > 0 || (Buffer.isBuffer(body) && body.length > 0);
        validatorFor(base)
          .then((v) => v?.check({ method, url: target, status: res.status, contentType: res.headers['content-type'], body, hasBody }))
          .then(
            (problem) => fn?.(err ?? (problem ? new OpenApiDriftError(problem) : null), res),
            (e: unknown) => fn?.(e instanceof Error ? e : new Error(String(e)), res),
          );
      })) as Test['end'];
      return test;
    };
  }
  return agent;
}

export const api = (server: TestServer) => validated(server.url);
/** Requests outside the /api/v1 prefix (docs); answers under the prefix are checked like `api`'s. */
export const root = (server: TestServer) => validated(`http://127.0.0.1:${server.port}`);

export interface TestUser {
  token: string;
  refreshToken: string;
  user: { id: string; email: string; role: string; email_verified: boolean };
  workspace: { id: string; plan: string; credits_balance: number };
  auth: { Authorization: string };
}

let n = 0;
export function uniqueEmail(tag = 'user'): string {
  n += 1;
  return `${tag}.${process.pid}.${Date.now().toString(36)}.${n}@e2e.test`;
}

export interface RegisterOptions {
  /**
   * Verify the new user's email address through the dev mailbox (default), as a real user opens the
   * emailed link; `false` leaves it unverified (publishing, buying and API keys then answer 403).
   */
  verified?: boolean;
}

/** Registers a fresh user (Starter plan, 50 credits), by default with its email verified, and answers its tokens and workspace. */
export async function registerUser(server: TestServer, overrides: Record<string, unknown> = {}, opts: RegisterOptions = {}): Promise<TestUser> {
  const email = (overrides.email as string) ?? uniqueEmail();
  const res = await api(server)
    .post('/auth/register')
    .send({ email, password: 'correct-horse-battery', accept_terms: true, accept_privacy: true, ...overrides });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  if (opts.verified !== false) await verifyEmail(server, res.body.user.email);
  const me = await api(server).get('/auth/me').set('Authorization', `Bearer ${res.body.access_token}`);
  if (me.status !== 200) throw new Error(`me failed: ${me.status} ${JSON.stringify(me.body)}`);
  return {
    token: res.body.access_token,
    refreshToken: res.body.refresh_token,
    user: { ...res.body.user, email_verified: me.body.user.email_verified },
    workspace: me.body.workspace,
    auth: { Authorization: `Bearer ${res.body.access_token}` },
  };
}

/** Opens the newest verification link mailed to `email` (read from the dev mailbox) with POST /auth/verify-email. */
export async function verifyEmail(server: TestServer, email: string): Promise<void> {
  const link = await mailboxLink(server, email, 'account.email_verification_requested');
  const res = await api(server).post('/auth/verify-email').send({ token: tokenFromLink(link) });
  if (res.status !== 200) throw new Error(`verify-email failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Logs in as the admin account the server made from ADMIN_EMAIL/ADMIN_PASSWORD. */
export async function loginAdmin(server: TestServer): Promise<{ Authorization: string }> {
  const res = await api(server).post('/auth/login').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { Authorization: `Bearer ${res.body.access_token}` };
}

export async function setPlan(server: TestServer, admin: { Authorization: string }, workspaceId: string, plan: string): Promise<void> {
  const res = await api(server).patch(`/admin/workspaces/${workspaceId}`).set(admin).send({ plan });
  if (res.status !== 200) throw new Error(`set plan failed: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function grantCredits(server: TestServer, admin: { Authorization: string }, workspaceId: string, amount: number): Promise<void> {
  const res = await api(server).post(`/admin/workspaces/${workspaceId}/credits`).set(admin).send({ amount, reason: 'e2e grant' });
  if (res.status !== 201 && res.status !== 200) throw new Error(`grant failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/** An id of the right shape that exists nowhere. */
export function missingId(prefix: string): string {
  return `${prefix}_01ARZ3NDEKTSV4RRFFQ69G5FAV`;
}

/** Connects a platform in sandbox mode (no client credentials): auth URL → built-in consent → callback (contract §8). */
export async function connectSandbox(server: TestServer, user: TestUser, platform: string): Promise<void> {
  const authUrl = await api(server).get(`/integrations/${platform}/auth-url`).query({ redirect: '/settings/integrations' }).set(user.auth);
  if (authUrl.status !== 200) throw new Error(`auth-url failed: ${authUrl.status} ${JSON.stringify(authUrl.body)}`);
  const consent = new URL(authUrl.body.url as string);
  const back = await root(server).get(`${consent.pathname}${consent.search}`).redirects(0);
  if (back.status !== 302) throw new Error(`sandbox consent failed: ${back.status} ${JSON.stringify(back.body)}`);
  const callback = new URL(back.headers.location);
  const done = await root(server).get(`${callback.pathname}${callback.search}`).redirects(0);
  if (done.status !== 302 || !new URL(done.headers.location).searchParams.has('connected')) {
    throw new Error(`callback failed: ${done.status} ${done.headers.location ?? JSON.stringify(done.body)}`);
  }
}
