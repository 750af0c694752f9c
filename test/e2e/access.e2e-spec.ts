import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, missingId, registerUser, root, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';

/**
 * Deny by default, proven from the outside: every documented route is called with no credentials,
 * with an API key where a session belongs, and with a session where a key belongs.
 */

const PREFIX = '/api/v1';
/** The document's paths are relative to its server, PREFIX. */
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
type Method = (typeof METHODS)[number];

interface Route {
  method: Method;
  /** Documented path without the /api/v1 prefix, e.g. /characters/{id}. */
  path: string;
}

/** The only routes that answer without credentials. Anything else must answer 401. */
const OPEN_ROUTES: RegExp[] = [
  /^GET \/health(\/ready)?$/,
  /^POST \/auth\/(register|login|refresh)$/,
  // Account recovery and sign-in steps taken before there is a session: the link's or step's token is the credential.
  /^POST \/auth\/(verify-email|password\/forgot|password\/reset|mfa\/verify)$/,
  // Development only (404 in production and with SMTP): the offline mailer's messages.
  /^GET \/dev\/mailbox$/,
  /^GET \/media\//,
  /^GET \/integrations\/\{platform\}\/(callback|sandbox-consent)$/,
  /^POST \/webhooks\/(replicate\/trainings|stripe)$/,
  // The platforms' comment and DM webhooks: their signature (POST) or verify token / CRC (GET) is the credential.
  /^(GET|POST) \/webhooks\/(instagram|x)$/,
  // Affiliate links' public redirect: anyone who has the link may follow it.
  /^GET \/l\/\{shortcode\}$/,
  // The billing sandbox's hosted pages (no Stripe settings): the checkout or portal id in the path is the credential.
  /^(GET|POST) \/billing\/sandbox\/(checkout|portal)\//,
  // White-label: the login page reads the branding and shows the logo before anyone signs in.
  /^GET \/branding(\/logo\/\{workspaceId\})?$/,
  // Open to the guard; its own METRICS_TOKEN check answers 401, and 404 when none is configured (as here).
  /^GET \/metrics$/,
];

/** Which id prefix a path parameter takes, by its name or by the collection before it. */
const PREFIX_BY_PARAM: Record<string, string> = { contentId: 'cnt', generationId: 'th', jobId: 'mt', listingId: 'mkt' };
const PREFIX_BY_SEGMENT: Record<string, string> = {
  characters: 'char',
  influencers: 'char',
  content: 'cnt',
  video: 'cnt',
  schedule: 'sch',
  marketplace: 'mkt',
  listings: 'mkt',
  'api-keys': 'key',
  jobs: 'job',
  'talking-head': 'th',
  'motion-transfer': 'mt',
  endpoints: 'ep',
  workspaces: 'ws',
  users: 'user',
  'reference-images': 'ref',
  voices: 'voice',
  reviews: 'rev',
  purchases: 'pur',
  exports: 'exp',
  conversations: 'cnv',
  messages: 'cmsg',
  links: 'lnk',
};

/** Fills path parameters with well-formed ids that exist nowhere. */
function concretePath(path: string): string {
  const segments = path.split('/');
  return segments
    .map((segment, i) => {
      const param = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (!param) return segment;
      if (param === 'platform') return 'instagram';
      if (/idx|index/i.test(param)) return '0';
      const prefix = PREFIX_BY_PARAM[param] ?? PREFIX_BY_SEGMENT[segments[i - 1]] ?? 'x';
      return missingId(prefix);
    })
    .join('/');
}

const label = (r: Route) => `${r.method.toUpperCase()} ${r.path}`;
const isOpen = (r: Route) => OPEN_ROUTES.some((re) => re.test(label(r)));
/** The API-key surface: the agency routes and the MCP server over them. */
const isPublic = (r: Route) => r.path.startsWith('/public/') || r.path === '/mcp';

describe('route access declarations', () => {
  let backing: Backing;
  let server: TestServer;
  let user: TestUser;
  let routes: Route[];

  function call(r: Route, headers: Record<string, string> = {}) {
    return api(server)[r.method](concretePath(r.path)).set(headers);
  }

  /** Calls every route and answers those whose status or code is not the expected one. */
  async function mismatches(list: Route[], headers: Record<string, string>, expected: { status: number; code: string }) {
    const wrong: string[] = [];
    for (const r of list) {
      const res = await call(r, headers);
      if (res.status !== expected.status || res.body.code !== expected.code) wrong.push(`${label(r)} → ${res.status} ${res.body.code}`);
    }
    return wrong;
  }

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000' });
    user = await registerUser(server);
    const docs = await root(server).get('/api/docs-json');
    expect(docs.status).toBe(200);
    expect(docs.body.servers).toEqual([expect.objectContaining({ url: PREFIX })]);
    routes = Object.entries(docs.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      METHODS.filter((m) => ops[m] !== undefined).map((method) => ({ method, path })),
    );
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('finds the routes to check in the OpenAPI document', () => {
    expect(routes.length).toBeGreaterThan(10);
    const labels = routes.map(label);
    expect(labels).toEqual(expect.arrayContaining(['GET /health', 'POST /auth/login', 'GET /auth/me', 'POST /api-keys', 'DELETE /api-keys/{id}', 'GET /public/credits']));
    expect(routes.every((r) => !r.path.startsWith('/api/'))).toBe(true);
  });

  it('answers every route outside the open allow-list with 401 unauthorized when no credentials are sent', async () => {
    const guarded = routes.filter((r) => !isOpen(r));
    expect(guarded.length).toBeGreaterThan(5);
    expect(await mismatches(guarded, {}, { status: 401, code: 'unauthorized' })).toEqual([]);
  });

  it('lets the open routes through without credentials (a route without a declaration would answer 403)', async () => {
    const open = routes.filter(isOpen);
    expect(open.map(label)).toEqual(expect.arrayContaining(['GET /health', 'POST /auth/register', 'POST /auth/login', 'POST /auth/refresh']));
    const wrong: string[] = [];
    for (const r of open) {
      const res = await call(r);
      // Private media: the route is open to the guard, and its own check refuses an unsigned URL.
      if (label(r) === 'GET /media/{key}' && res.status === 403 && res.body.message === 'This media URL is not valid or has expired.') continue;
      // Provider webhooks: open to the guard, and their own signature check refuses an unsigned call.
      if (/^POST \/webhooks\//.test(label(r)) && res.status === 401 && res.body.message === 'The webhook signature could not be verified.') continue;
      // The platforms' subscription checks: open to the guard; their own check refuses a wrong or missing verify token or secret.
      if (/^GET \/webhooks\/(instagram|x)$/.test(label(r)) && res.status === 401 && /could not be verified\.$/.test(res.body.message)) continue;
      // Metrics: this server has no METRICS_TOKEN, so the route does not exist for anyone.
      if (label(r) === 'GET /metrics') {
        if (res.status !== 404 || res.body.code !== 'not_found') wrong.push(`${label(r)} → ${res.status} ${res.body.code}`);
        continue;
      }
      if (res.status === 401 || res.status === 403 || res.status >= 500) wrong.push(`${label(r)} → ${res.status} ${res.body.code}`);
    }
    expect(wrong).toEqual([]);
  });

  it('refuses an API key on every product route with 401 session_required', async () => {
    const product = routes.filter((r) => !isOpen(r) && !isPublic(r));
    expect(product.length).toBeGreaterThan(5);
    const fakeKey = { Authorization: `Bearer psk_${'A'.repeat(43)}` };
    expect(await mismatches(product, fakeKey, { status: 401, code: 'session_required' })).toEqual([]);
  });

  it('refuses a session token on every /public route with 401 api_key_required', async () => {
    const publicRoutes = routes.filter(isPublic);
    expect(publicRoutes.length).toBeGreaterThan(0);
    expect(await mismatches(publicRoutes, user.auth, { status: 401, code: 'api_key_required' })).toEqual([]);
  });
});
