import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { domainToASCII } from 'node:url';
import { join, resolve } from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { api, missingId, registerUser, root, type TestUser } from '../helpers/api.js';
import { startFakeDns, type FakeDns } from '../fakes/dns-server.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';

const ROOT = resolve(import.meta.dirname, '../..');
const ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50' };
/**
 * Domain checks run in the API process and come round fast: a pending claim is re-checked from
 * 300 ms on (doubling, at most every second), a verified one every second, failing after 2 misses.
 */
const DOMAIN_ENV = { RUN_JOBS_IN_API: 'true', DOMAIN_CHECK_INTERVAL_MS: '300', DOMAIN_RECHECK_INTERVAL_MS: '1000', DOMAIN_MISSES_BEFORE_FAILED: '2', DOMAIN_SCHEDULER_TICK_MS: '100' };
const DOMAIN = 'studio.acme-brand.test';

/** Runs SQL on the backing database and answers its rows: through pg on PostgreSQL; on PGlite with the server stopped. */
async function runSql(backing: Backing, sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
  if (backing.env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as Array<Record<string, unknown>>;
    } finally {
      await client.end();
    }
  }
  const script = `import { PGlite } from '@electric-sql/pglite';
const db = await PGlite.create(process.argv[1]);
const answer = await db.query(process.argv[2], JSON.parse(process.argv[3]));
await db.close();
process.stdout.write(JSON.stringify(answer.rows));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, join(backing.env.DATA_DIR, 'pglite'), sql, JSON.stringify(params)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`PGlite SQL exited with ${code}`);
  return JSON.parse(out) as Array<Record<string, unknown>>;
}

const png = (): Promise<Buffer> => sharp({ create: { width: 32, height: 16, channels: 3, background: '#336699' } }).png().toBuffer();
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

/** White-label branding (contract §14): the organisation routes, the open lookup by domain, the logo, the OAuth return page. */
describe('branding', () => {
  let backing: Backing;
  let server: TestServer;
  let dns: FakeDns;
  let env: Record<string, string>;
  let owner: TestUser;
  let other: TestUser;
  let third: TestUser;
  /** `other`, signed in to the owner's workspace as a viewer. */
  let viewer: { Authorization: string };
  const path = (id = owner.workspace.id) => `/organizations/${id}/branding`;
  const put = (body: Record<string, unknown>, auth = owner.auth, id = owner.workspace.id) => api(server).put(path(id)).set(auth).send(body);
  const upload = (bytes: Buffer, auth = owner.auth, part = 'logo') => api(server).post(`${path()}/logo`).set(auth).attach(part, bytes, 'logo.png');
  const onServer = (url: string) => root(server).get(`${new URL(url).pathname}${new URL(url).search}`);
  const brandingOf = async (user: TestUser) => (await api(server).get(path(user.workspace.id)).set(user.auth)).body.branding;
  const verify = (user: TestUser) => api(server).post(`${path(user.workspace.id)}/domain/verify`).set(user.auth);
  const byDomain = (domain: string) => api(server).get('/branding').query({ domain });
  /** Publishes, as the domain's DNS owner would, the TXT record a claim asks for. */
  const publish = (verification: { record_name: string; record_value: string }) => dns.setTxt(verification.record_name, [verification.record_value]);

  beforeAll(async () => {
    backing = await createBacking();
    dns = await startFakeDns();
    env = { ...ENV, ...DOMAIN_ENV, DNS_RESOLVER_SERVERS: dns.address, DNS_LOOKUP_TIMEOUT_MS: '1000' };
    server = await startServer(backing, env);
    [owner, other, third] = await Promise.all([registerUser(server), registerUser(server), registerUser(server)]);
    const addViewer = `INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, 'viewer')`;
    if (!backing.env.DATABASE_URL) await server.stop();
    await runSql(backing, addViewer, [owner.workspace.id, other.user.id]);
    if (!backing.env.DATABASE_URL) server = await startServer(backing, env);
    const switched = await api(server).post('/auth/switch-workspace').set(other.auth).send({ workspace_id: owner.workspace.id });
    expect(switched.status).toBe(200);
    viewer = { Authorization: `Bearer ${switched.body.access_token}` };
  });
  afterAll(async () => {
    await server?.stop();
    await dns?.close();
    await backing?.cleanup();
  });

  it('starts empty and takes partial updates; null clears a field', async () => {
    const first = await api(server).get(path()).set(owner.auth);
    expect(first.status).toBe(200);
    expect(first.body.branding).toMatchObject({ display_name: null, logo_url: null, primary_color: null, custom_domain: null });

    const a = await put({ display_name: 'Acme Creators', primary_color: '#112233', support_email: 'help@acme.test' });
    expect(a.status).toBe(200);
    const b = await put({ secondary_color: '#ABCDEF' });
    expect(b.status).toBe(200);
    expect(b.body.branding).toMatchObject({ display_name: 'Acme Creators', primary_color: '#112233', secondary_color: '#ABCDEF', custom_domain: null, domain_verification: null, support_email: 'help@acme.test' });
    const c = await put({ support_email: null });
    expect(c.body.branding).toMatchObject({ support_email: null, display_name: 'Acme Creators' });
    expect((await api(server).get(path()).set(viewer)).body.branding).toEqual(c.body.branding);
  });

  it('refuses bad colors, domains and emails with 400 naming the field, changing nothing', async () => {
    const before = (await api(server).get(path()).set(owner.auth)).body.branding;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ primary_color: 'red' }, 'primary_color'],
      [{ secondary_color: '#12345' }, 'secondary_color'],
      [{ custom_domain: 'https://brand.test' }, 'custom_domain'],
      [{ custom_domain: 'brand.test:8080' }, 'custom_domain'],
      [{ custom_domain: 'localhost' }, 'custom_domain'],
      [{ custom_domain: '192.168.1.10' }, 'custom_domain'],
      [{ custom_domain: `${'a'.repeat(64)}.test` }, 'custom_domain'],
      [{ custom_domain: 'brand.test/login' }, 'custom_domain'],
      [{ custom_domain: '%62rand.test' }, 'custom_domain'],
      [{ custom_domain: '0x7f.1' }, 'custom_domain'],
      [{ custom_domain: 'xn--a.test' }, 'custom_domain'],
      [{ support_email: 'not-an-email' }, 'support_email'],
      [{ support_email: 'Acme Help <help@acme.test>' }, 'support_email'],
      [{ support_email: '<help@acme.test>' }, 'support_email'],
      [{ support_email: 'help@acme.test\r\nBcc: all@evil.test' }, 'support_email'],
      [{ support_email: 'he\u0000lp@acme.test' }, 'support_email'],
      [{ support_email: '"help"@acme.test' }, 'support_email'],
      [{ support_email: 'help@[127.0.0.1]' }, 'support_email'],
      [{ support_email: `${'x'.repeat(65)}@acme.test` }, 'support_email'],
      [{ display_name: 'x'.repeat(101) }, 'display_name'],
      [{ logo_url: 'https://evil.test/x.png' }, 'logo_url'],
    ];
    for (const [body, field] of cases) {
      const res = await put(body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code: 'validation_failed' });
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await api(server).get(path()).set(owner.auth)).body.branding).toEqual(before);
  });

  it('stores a support email with its IDN domain in A-label form', async () => {
    const res = await put({ support_email: 'Help+Desk@Bücher.test' }, third.auth, third.workspace.id);
    expect([res.status, res.body.branding?.support_email]).toEqual([200, 'Help+Desk@xn--bcher-kva.test']);
  });

  it('serves nothing for a claimed domain until its DNS proof is seen; the squatter who claimed first loses to the owner who proves it', async () => {
    // The squatter claims the domain first: allowed, but only as a pending claim with its own token.
    const squat = await put({ custom_domain: DOMAIN, display_name: 'Squatter' }, other.auth, other.workspace.id);
    expect(squat.status).toBe(200);
    expect(squat.body.branding).toMatchObject({ custom_domain: DOMAIN, custom_domain_unicode: DOMAIN, custom_domain_status: 'pending' });
    expect(squat.body.branding.domain_verification).toMatchObject({ status: 'pending', record_type: 'TXT', record_name: `_persona-studio.${DOMAIN}`, failure: null, verified_at: null });
    const squatCheck = await verify(other);
    expect(squatCheck.status).toBe(200);
    expect(squatCheck.body.domain_verification).toMatchObject({ status: 'pending', last_check_outcome: 'absent' });
    expect([(await byDomain(DOMAIN)).status, (await byDomain(DOMAIN)).body.code]).toEqual([404, 'not_found']);

    // The owner claims it too (any case); its own token, and still nothing served.
    const claimed = await put({ custom_domain: 'STUDIO.Acme-Brand.test' });
    expect(claimed.status).toBe(200);
    const proof = claimed.body.branding.domain_verification;
    expect(proof).toMatchObject({ domain: DOMAIN, status: 'pending', record_name: `_persona-studio.${DOMAIN}` });
    expect(proof.record_value).toMatch(/^persona-studio-verification=[0-9a-f]{32}$/);
    expect(proof.record_value).not.toBe(squat.body.branding.domain_verification.record_value);
    expect((await byDomain(DOMAIN)).status).toBe(404);

    // A record with another claim's value proves nothing.
    publish({ record_name: proof.record_name, record_value: squat.body.branding.domain_verification.record_value.replace(/.$/, (c: string) => (c === '0' ? '1' : '0')) });
    expect((await verify(owner)).body.domain_verification).toMatchObject({ status: 'pending', last_check_outcome: 'mismatch' });

    // The domain's DNS owner publishes the owner's record: the owner is verified, the squatter's pending claim loses.
    publish(proof);
    const checked = await verify(owner);
    expect(checked.status).toBe(200);
    expect(checked.body.domain_verification).toMatchObject({ status: 'verified', last_check_outcome: 'found', failure: null });
    expect(checked.body.domain_verification.verified_at).toEqual(expect.any(String));
    const served = await byDomain(DOMAIN);
    expect(served.status).toBe(200);
    expect(served.body.branding).toMatchObject({ display_name: 'Acme Creators', custom_domain: DOMAIN, custom_domain_status: 'verified' });
    expect(served.body.branding).not.toHaveProperty('domain_verification');
    expect((await brandingOf(other)).domain_verification).toMatchObject({ status: 'failed', failure: 'claimed_elsewhere', next_check_at: null });
    expect((await verify(other)).body.domain_verification).toMatchObject({ status: 'failed', failure: 'claimed_elsewhere' });
  });

  it('refuses a verified domain to another workspace (409 domain_taken, whatever its case), through the organisation PUT too', async () => {
    for (const domain of [DOMAIN, 'Studio.ACME-brand.test']) {
      const res = await put({ custom_domain: domain }, third.auth, third.workspace.id);
      expect({ domain, status: res.status, code: res.body.code }).toEqual({ domain, status: 409, code: 'domain_taken' });
    }
    // The organisation's own PUT changes branding in its transaction: nothing of it lands.
    const named = async () => (await api(server).get(`/organizations/${third.workspace.id}`).set(third.auth)).body.organization.name as string;
    const nameBefore = await named();
    const viaOrganisation = await api(server).put(`/organizations/${third.workspace.id}`).set(third.auth).send({ name: 'Third Co', branding: { custom_domain: DOMAIN } });
    expect({ status: viaOrganisation.status, code: viaOrganisation.body.code }).toEqual({ status: 409, code: 'domain_taken' });
    expect(nameBefore).not.toBe('Third Co');
    expect(await named()).toBe(nameBefore);
    // Keeping one's own domain is not a conflict, and keeps its proof.
    const kept = await put({ custom_domain: DOMAIN });
    expect([kept.status, kept.body.branding.custom_domain_status]).toEqual([200, 'verified']);
  });

  it('refuses look-alikes of a verified domain (409 domain_confusable), in Unicode or punycode', async () => {
    const lookalikes = ['ѕtudio.acme-brand.test', domainToASCII('ѕtudio.acme-brand.test'), 'studi0.acme-brand.test', 'studio.acrne-brand.test', 'studio.acme-brand.tеst'];
    expect(lookalikes[1]).toMatch(/^xn--/);
    for (const domain of lookalikes) {
      const res = await put({ custom_domain: domain }, third.auth, third.workspace.id);
      expect({ domain, status: res.status, code: res.body.code }).toEqual({ domain, status: 409, code: 'domain_confusable' });
      expect(res.body.details).toMatchObject({ looks_like: DOMAIN });
    }
  });

  it('lets a parent or child of a verified domain be claimed, but keeps it pending and unserved without its own proof', async () => {
    for (const domain of ['acme-brand.test', `app.${DOMAIN}`]) {
      const res = await put({ custom_domain: domain }, third.auth, third.workspace.id);
      expect({ domain, status: res.status, state: res.body.branding?.custom_domain_status }).toEqual({ domain, status: 200, state: 'pending' });
      expect((await verify(third)).body.domain_verification).toMatchObject({ domain, status: 'pending', last_check_outcome: 'absent' });
      expect((await byDomain(domain)).status).toBe(404);
    }
  });

  it('fails a look-alike claimed before the real domain was verified, even with its own proof published', async () => {
    // A fresh pair of domains, so the look-alike's claim is pending when the real one is verified.
    const real = 'login.brand-two.test';
    const fake = 'logіn.brand-two.test'; // Cyrillic і
    const early = await put({ custom_domain: fake }, third.auth, third.workspace.id);
    expect(early.body.branding).toMatchObject({ custom_domain: domainToASCII(fake), custom_domain_unicode: fake, custom_domain_status: 'pending' });
    const realClaim = await put({ custom_domain: real }, other.auth, other.workspace.id);
    publish(realClaim.body.branding.domain_verification);
    expect((await verify(other)).body.domain_verification.status).toBe('verified');
    publish(early.body.branding.domain_verification);
    expect((await verify(third)).body.domain_verification).toMatchObject({ status: 'failed', failure: 'confusable' });
    expect((await byDomain(fake)).status).toBe(404);
    expect((await byDomain(real)).status).toBe(200);
  });

  it('normalises IDNs (UTS-46): claimed in Unicode, stored and proven in A-label form, served for either spelling', async () => {
    const res = await put({ custom_domain: 'Bücher-Studio.test' }, third.auth, third.workspace.id);
    expect(res.status).toBe(200);
    const ascii = domainToASCII('bücher-studio.test');
    expect(res.body.branding).toMatchObject({ custom_domain: ascii, custom_domain_unicode: 'bücher-studio.test', custom_domain_status: 'pending' });
    expect(res.body.branding.domain_verification.record_name).toBe(`_persona-studio.${ascii}`);
    // No verify call: the periodic check sees the record and verifies the claim on its own.
    publish(res.body.branding.domain_verification);
    await waitFor(async () => (await brandingOf(third)).custom_domain_status === 'verified', 15_000, 'the scheduled check to verify the IDN claim');
    for (const spelling of ['bücher-studio.test', ascii, 'BÜCHER-studio.test']) {
      expect({ spelling, status: (await byDomain(spelling)).status }).toEqual({ spelling, status: 200 });
    }
  });

  it('re-checks verified domains: one whose record disappears fails after the configured misses and is no longer served', async () => {
    const proof = (await brandingOf(third)).domain_verification;
    dns.remove(proof.record_name);
    const failed = await waitFor(async () => {
      const v = (await brandingOf(third)).domain_verification;
      return v.status === 'failed' ? v : null;
    }, 15_000, 'the scheduled checks to fail the domain');
    expect(failed).toMatchObject({ failure: 'record_missing', next_check_at: null, last_check_outcome: 'absent' });
    expect((await byDomain(proof.domain)).status).toBe(404);
    // Published again, a check on request brings it back.
    publish(proof);
    expect((await verify(third)).body.domain_verification).toMatchObject({ status: 'verified', failure: null });
    expect((await byDomain(proof.domain)).status).toBe(200);
  });

  it('checks on request only for admins of the workspace, and only a claimed domain', async () => {
    const asViewer = await api(server).post(`${path()}/domain/verify`).set(viewer);
    expect([asViewer.status, asViewer.body.code]).toEqual([403, 'insufficient_role']);
    const foreign = await api(server).post(`${path(other.workspace.id)}/domain/verify`).set(owner.auth);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
    expect((await put({ custom_domain: null }, third.auth, third.workspace.id)).body.branding).toMatchObject({ custom_domain: null, domain_verification: null });
    const none = await verify(third);
    expect([none.status, none.body.code]).toEqual([404, 'not_found']);
  });

  it('lets a viewer read but not change (403 insufficient_role)', async () => {
    const res = await put({ display_name: 'Hijacked' }, viewer);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_role', details: { required: 'admin' } });
    const logo = await upload(await png(), viewer);
    expect(logo.status).toBe(403);
    expect(logo.body.code).toBe('insufficient_role');
  });

  it('answers 404 for another organisation id, a member one included, and a malformed one', async () => {
    for (const id of [other.workspace.id, missingId('ws'), 'not-an-id']) {
      const read = await api(server).get(path(id)).set(owner.auth);
      expect({ id, status: read.status, code: read.body.code }).toEqual({ id, status: 404, code: 'not_found' });
      expect((await put({ display_name: 'x' }, owner.auth, id)).status).toBe(404);
    }
    // The viewer belongs to both workspaces; its token is for the owner's, so its own is foreign here.
    expect((await api(server).get(path(other.workspace.id)).set(viewer)).status).toBe(404);
  });

  it('stores a logo by its bytes and serves it publicly and cacheably', async () => {
    const bytes = await png();
    const res = await upload(bytes);
    expect(res.status).toBe(200);
    const url: string = res.body.branding.logo_url;
    expect(url).toMatch(new RegExp(`/api/v1/branding/logo/${owner.workspace.id}\\?v=[0-9a-f]{16}$`));
    const served = await onServer(url).buffer(true);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['cache-control']).toBe('public, max-age=86400');
    expect(Buffer.compare(served.body as Buffer, bytes)).toBe(0);

    const again = await upload(await sharp(bytes).webp().toBuffer());
    expect(again.body.branding.logo_url).not.toBe(url);
    expect((await onServer(again.body.branding.logo_url)).headers['content-type']).toBe('image/webp');
    expect((await root(server).get(`/api/v1/branding/logo/${other.workspace.id}`)).status).toBe(404);
  });

  it('refuses a logo that is not PNG, JPEG or WebP (415), too big (413), or in the wrong part (400)', async () => {
    const svg = await upload(SVG);
    expect([svg.status, svg.body.code]).toEqual([415, 'unsupported_media_type']);
    const fake = await upload(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64)]));
    expect([fake.status, fake.body.code]).toEqual([415, 'unsupported_media_type']);
    const big = await upload(Buffer.concat([await png(), Buffer.alloc(2 * 1024 * 1024)]));
    expect([big.status, big.body.code]).toEqual([413, 'payload_too_large']);
    const wrongPart = await upload(await png(), owner.auth, 'file');
    expect([wrongPart.status, wrongPart.body.code]).toEqual([400, 'validation_failed']);
  });

  it('answers GET /branding?domain= without auth, with a strong ETag, 304 on If-None-Match, 404 for an unknown domain', async () => {
    const res = await api(server).get('/branding').query({ domain: 'studio.acme-brand.test' });
    expect(res.status).toBe(200);
    expect(res.body.branding).toMatchObject({ display_name: 'Acme Creators', primary_color: '#112233', custom_domain: 'studio.acme-brand.test' });
    expect(res.body.branding.logo_url).toContain(`/branding/logo/${owner.workspace.id}`);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    const etag = res.headers.etag;
    expect(etag).toMatch(/^"[^"]+"$/);

    const cached = await api(server).get('/branding').query({ domain: 'studio.acme-brand.test' }).set('If-None-Match', etag);
    expect(cached.status).toBe(304);
    expect(cached.headers.etag).toBe(etag);
    const upper = await api(server).get('/branding').query({ domain: 'Studio.Acme-Brand.test' });
    expect(upper.headers.etag).toBe(etag);

    await put({ display_name: 'Acme Studio' });
    const changed = await api(server).get('/branding').query({ domain: 'studio.acme-brand.test' }).set('If-None-Match', etag);
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);

    const unknown = await api(server).get('/branding').query({ domain: 'nobody.acme-brand.test' });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    expect((await api(server).get('/branding')).status).toBe(400);
  });

  it('shows the branding, escaped, on the OAuth return page', async () => {
    const name = '<script>alert("x")</script> & Co';
    expect((await put({ display_name: name })).status).toBe(200);
    const authUrl = await api(server).get('/integrations/instagram/auth-url').query({ redirect: '/settings/integrations' }).set(owner.auth);
    expect(authUrl.status).toBe(200);
    const consent = await onServer(authUrl.body.url).redirects(0);
    expect(consent.status).toBe(302);
    const back = await onServer(consent.headers.location).redirects(0);
    expect(back.status).toBe(302);
    expect(new URL(back.headers.location).searchParams.get('connected')).toBe('instagram');
    expect(back.headers['content-type']).toMatch(/^text\/html/);
    expect(back.headers['content-security-policy']).toContain("default-src 'none'");
    expect(back.text).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; Co');
    expect(back.text).not.toContain('<script>');
    expect(back.text).toContain('background:#112233');
    expect(back.text).toContain(`/branding/logo/${owner.workspace.id}`);
  });

  // Last: on PGlite the server must stop for the test to read the database.
  it('audits each change in its transaction, with its actor, fields and request id; refused changes leave nothing', async () => {
    if (!backing.env.DATABASE_URL) await server.stop();
    const rows = await runSql(backing, `SELECT actor_user_id, details, request_id FROM audit_log WHERE workspace_id = $1 AND action = 'branding.updated' ORDER BY created_at, id`, [owner.workspace.id]);
    // 3 updates + the domain claim + keeping it + 2 logos + 2 display names: the 400s, 403s, 409s and 415s added none.
    expect(rows.length).toBe(9);
    expect(rows.every((r) => r.actor_user_id === owner.user.id && typeof r.request_id === 'string' && r.request_id.startsWith('req_'))).toBe(true);
    expect(rows[0].details).toEqual({ fields: ['display_name', 'primary_color', 'support_email'] });
    expect(rows[3].details).toEqual({ fields: ['custom_domain'] });
    expect(rows[5].details).toMatchObject({ fields: ['logo'], type: 'image/png' });
  });
});
