import { BENCH_PASSWORD, register, setPlan, type Account } from '../lib/accounts.js';
import { ApiClient } from '../lib/http.js';
import { table, type Target } from '../lib/report.js';
import { startApi, type BenchApi } from '../lib/server.js';

/** The interface's bound: a change that ends or narrows access is honoured on every instance within it. */
const BOUND_MS = 1_000;
/** Requests each instance answers before a change, so that both remember the credential's check. */
const WARM_REQUESTS = 5;

interface Probe {
  path: string;
  token: string;
  /** The refusal the change must bring. */
  refused: number;
}

interface Reading {
  change: string;
  /** Time from the change's answer on A to B's first refusal. */
  ms: number;
  /** Requests B still accepted after the change was answered. */
  acceptedAfter: number;
}

/**
 * Issue 29: after logout, key revocation, member removal and a plan change made on one API
 * instance, the next request on another is refused within 1 s. A second API runs beside the
 * scenario's own on the same PostgreSQL and Redis; each change is made through instance A once
 * both instances remember the credential, and B is asked again and again from the moment A
 * answered until it refuses.
 */
export async function revocationTimings(a: BenchApi, env: Record<string, string>, admin: string, stamp: string): Promise<{ text: string; target: Target }> {
  const b = await startApi(env);
  try {
    const apiA = new ApiClient(a.baseUrl);
    const apiB = new ApiClient(b.baseUrl);
    const owner = await setPlan(apiA, admin, await register(apiA, `revocation-owner-${stamp}@bench.test`), 'agency');
    const member = await register(apiA, `revocation-member-${stamp}@bench.test`);
    const asMember = await join(apiA, owner, member);
    const session = await apiA.post<{ access_token: string }>('/auth/login', { email: owner.email, password: BENCH_PASSWORD }, { expect: 200 });
    const revokedKey = await apiKey(apiA, owner, 'revoked');
    const planKey = await apiKey(apiA, owner, 'plan');

    const readings: Reading[] = [];
    readings.push(
      await time(apiA, apiB, 'logout', { path: '/characters', token: session.body.access_token, refused: 401 }, () =>
        apiA.post('/auth/logout', undefined, { token: session.body.access_token, expect: 204 }),
      ),
    );
    readings.push(
      await time(apiA, apiB, 'API key revoked', { path: '/public/characters', token: revokedKey.key, refused: 401 }, () =>
        apiA.request('DELETE', `/api-keys/${revokedKey.id}`, { token: owner.token, expect: 204 }),
      ),
    );
    readings.push(
      await time(apiA, apiB, 'member removed', { path: '/characters', token: asMember, refused: 401 }, () =>
        apiA.request('DELETE', `/organizations/${owner.workspaceId}/members/${member.userId}`, { token: owner.token, expect: 204 }),
      ),
    );
    readings.push(
      await time(apiA, apiB, 'plan changed to Starter', { path: '/public/characters', token: planKey.key, refused: 403 }, () =>
        apiA.patch(`/admin/workspaces/${owner.workspaceId}`, { plan: 'starter' }, { token: admin }),
      ),
    );

    const worst = Math.max(...readings.map((r) => r.ms));
    const late = readings.reduce((n, r) => n + r.acceptedAfter, 0);
    const text = [
      `  two API instances on one PostgreSQL + Redis: a change made through A, then B asked until it refuses (${WARM_REQUESTS} requests on each first, so both remember the credential):`,
      table(
        ['change', 'B refused after (ms)', 'B accepted after the change'],
        readings.map((r) => [r.change, r.ms.toFixed(1), String(r.acceptedAfter)]),
        [false, true, true],
      ),
    ].join('\n');
    return {
      text,
      target: {
        goal: 'logout, key revocation, member removal, plan change: the next request on another instance refused within 1 s',
        actual: `worst ${worst.toFixed(1)} ms, ${late} accepted after a change`,
        pass: worst < BOUND_MS && late === 0,
      },
    };
  } finally {
    await b.stop();
  }
}

/** The member of `owner`'s workspace by invitation, accepted, and a session there. */
async function join(api: ApiClient, owner: Account, member: Account): Promise<string> {
  const invited = await api.post<{ invitation: { id: string } }>(`/organizations/${owner.workspaceId}/members`, { email: member.email, role: 'editor' }, { token: owner.token, expect: 201 });
  await api.post(`/invitations/${invited.body.invitation.id}/accept`, undefined, { token: member.token, expect: 200 });
  const switched = await api.post<{ access_token: string }>('/auth/switch-workspace', { workspace_id: owner.workspaceId }, { token: member.token, expect: 200 });
  return switched.body.access_token;
}

async function apiKey(api: ApiClient, owner: Account, name: string): Promise<{ id: string; key: string }> {
  const { body } = await api.post<{ api_key: { id: string }; key: string }>('/api-keys', { name, scopes: ['characters:read'] }, { token: owner.token, expect: 201 });
  return { id: body.api_key.id, key: body.key };
}

async function time(apiA: ApiClient, apiB: ApiClient, change: string, probe: Probe, make: () => Promise<unknown>): Promise<Reading> {
  for (const api of [apiA, apiB]) for (let i = 0; i < WARM_REQUESTS; i++) await api.get(probe.path, { token: probe.token, expect: 200 });
  await make();
  const answered = performance.now();
  let acceptedAfter = 0;
  for (;;) {
    const res = await apiB.request('GET', probe.path, { token: probe.token, expect: [200, probe.refused] });
    if (res.status === probe.refused) return { change, ms: performance.now() - answered, acceptedAfter };
    acceptedAfter += 1;
    if (performance.now() - answered > 10 * BOUND_MS) throw new Error(`${change}: B still accepted ${probe.path} ${acceptedAfter} times, ${10 * BOUND_MS} ms after the change`);
  }
}
