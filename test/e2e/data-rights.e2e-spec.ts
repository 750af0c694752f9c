import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { api, connectSandbox, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { inviteAndAccept, switchTo } from '../helpers/invitations.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';
import { unzip } from '../helpers/zip.js';

type Body = Record<string, any>;
const ROOT = resolve(import.meta.dirname, '../..');
const PASSWORD = 'correct-horse-battery';
/** About 8.6 s between a deletion request and its purge; the purge pass looks every 300 ms. */
const ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '1000', RUN_JOBS_IN_API: 'true', ACCOUNT_DELETION_GRACE_DAYS: '0.0001', ACCOUNT_PURGE_TICK_MS: '300' };

async function makeImage(seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(48 * 40 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * (seed + 3) * 7919 + seed * 31) % 256;
  return sharp(raw, { raw: { width: 48, height: 40, channels: 3 } }).png().toBuffer();
}

/**
 * Counts, in every text, JSON and array column of every table, the rows whose text holds one of the
 * needles: through pg on PostgreSQL; on PGlite in a child process (the server stopped first).
 */
async function scanDatabase(backing: Backing, needles: string[]): Promise<Array<{ t: string; c: string }>> {
  const columnsSql = `SELECT string_agg(format('SELECT %L AS t, %L AS c FROM %I WHERE %I::text LIKE ANY($1)', table_name, column_name, table_name, column_name), ' UNION ALL ')
    AS sql FROM information_schema.columns WHERE table_schema = 'public' AND data_type IN ('text', 'jsonb', 'json', 'ARRAY', 'character varying')`;
  const patterns = needles.map((n) => `%${n}%`);
  if (backing.env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    await client.connect();
    try {
      const sql = (await client.query(columnsSql)).rows[0].sql as string;
      return (await client.query(sql, [patterns])).rows as Array<{ t: string; c: string }>;
    } finally {
      await client.end();
    }
  }
  const script = `import { PGlite } from '@electric-sql/pglite';
const db = await PGlite.create(process.argv[1]);
const sql = (await db.query(process.argv[2])).rows[0].sql;
const answer = await db.query(sql, [JSON.parse(process.argv[3])]);
await db.close();
process.stdout.write(JSON.stringify(answer.rows));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, join(backing.env.DATA_DIR, 'pglite'), columnsSql, JSON.stringify(patterns)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`PGlite scan exited with ${code}`);
  return JSON.parse(out) as Array<{ t: string; c: string }>;
}

/** Data rights (docs/accounts-data.md): the workspace export and the account's deletion. */
describe('data rights', () => {
  let backing: Backing;
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let admin: { Authorization: string };
  const seen: Body = {};
  /** A Pro workspace, so it may have members. */
  const teamOwner = async (): Promise<TestUser> => {
    const user = await registerUser(server);
    await setPlan(server, admin, user.workspace.id, 'pro');
    return user;
  };

  const get = (auth: { Authorization: string }, path: string) => api(server).get(path).set(auth);
  /** Our URLs name the configured public host; fetch them from the test server. */
  const fetchUrl = (url: string) => fetch(new URL(`${new URL(url).pathname}${new URL(url).search}`, server.url));
  const storagePath = (url: string) => join(backing.env.DATA_DIR, 'uploads', decodeURIComponent(new URL(url).pathname.replace(/^\/api\/v1\/media\//, '')));

  /** A character with a reference image and one approved content item (images made by the offline generator). */
  async function fillWorkspace(user: TestUser, name: string): Promise<{ character: string; refUrl: string; item: string; mediaUrl: string }> {
    const created = await api(server).post('/characters').set(user.auth).send({ name, niche: 'fashion', settings: { autopilot: true } });
    expect(created.status).toBe(201);
    const character = created.body.character.id as string;
    const up = await api(server).post(`/characters/${character}/reference-images`).set(user.auth).attach('file', await makeImage(name.length), { filename: 'face.png', contentType: 'image/png' });
    expect(up.status).toBe(201);
    const generated = await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: 'instagram', prompt: `${name} at golden hour` });
    expect(generated.status).toBe(201);
    const item = generated.body.item.id as string;
    const ready = await waitFor(async () => {
      const res = await get(user.auth, `/content/${item}`);
      return res.body.item?.status === 'approved' ? (res.body.item as Body) : undefined;
    }, 60_000, `${name}'s item to be approved`);
    return { character, refUrl: up.body.reference_image.url as string, item, mediaUrl: ready.media[0].url as string };
  }

  const exportDone = (user: { Authorization: string }, id: string) =>
    waitFor(async () => {
      const res = await get(user, `/auth/exports/${id}`);
      return res.status === 200 && res.body.export.status !== 'pending' ? (res.body.export as Body) : undefined;
    }, 60_000, `export ${id}`);

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, ENV);
    admin = await loginAdmin(server);
    alice = await teamOwner();
    bob = await registerUser(server);
    seen.alice = await fillWorkspace(alice, 'Alice Studio');
    seen.bob = await fillWorkspace(bob, 'Bob Works');
    await connectSandbox(server, alice, 'instagram');
    const scheduled = await api(server).post(`/content/${seen.alice.item as string}/schedule`).set(alice.auth).send({ scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(scheduled.status).toBe(201);
    seen.post = scheduled.body.scheduled_posts[0].id;
  }, 240_000);

  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  describe('export', () => {
    let archive: Map<string, Buffer>;
    let downloadUrl: string;
    let exportId: string;

    it('starts with 202 and a pending export, then is ready with a signed download URL valid about 24 h', async () => {
      const started = await api(server).post('/auth/export').set(alice.auth);
      expect(started.status).toBe(202);
      expect(started.body.export).toMatchObject({ id: expect.stringMatching(/^exp_[0-9A-Z]{26}$/), status: 'pending', download_url: null });
      exportId = started.body.export.id;
      const done = await exportDone(alice.auth, exportId);
      expect(done.status).toBe('ready');
      const hours = (Date.parse(done.expires_at) - Date.parse(done.ready_at)) / 3_600_000;
      expect(hours).toBe(24);
      downloadUrl = done.download_url;
      expect(downloadUrl).toMatch(/\/api\/v1\/media\/exports\/exp_[0-9A-Z]{26}\/archive\.zip\?expires=\d+&signature=/);
      const res = await fetchUrl(downloadUrl);
      expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/zip']);
      archive = unzip(Buffer.from(await res.arrayBuffer()));
      expect(Number(done.size_bytes)).toBeGreaterThan(0);
    });

    it("holds the workspace's character, reference image, content with its media and the post, as JSON per context and files", () => {
      const text = (name: string) => archive.get(name)?.toString('utf8') ?? '';
      expect([...archive.keys()]).toEqual(expect.arrayContaining(['manifest.json', 'auth.json', 'characters.json', 'content.json', 'publishing.json', 'billing.json', 'organisations.json']));
      const characters = JSON.parse(text('characters.json')) as Body;
      expect(characters.characters.map((c: Body) => c.id)).toEqual([seen.alice.character]);
      expect(characters.reference_images).toHaveLength(1);
      expect(JSON.parse(text('content.json')).content_items.map((c: Body) => c.id)).toEqual([seen.alice.item]);
      expect(JSON.parse(text('publishing.json')).scheduled_posts.map((p: Body) => p.id)).toEqual([seen.post]);
      const refKey = new URL(seen.alice.refUrl).pathname.replace('/api/v1/media/', '');
      const mediaKey = new URL(seen.alice.mediaUrl).pathname.replace('/api/v1/media/', '');
      expect(archive.get(`media/${refKey}`)?.subarray(1, 4).toString()).toBe('PNG');
      expect(archive.get(`media/${mediaKey}`)?.length).toBeGreaterThan(0);
      const auth = JSON.parse(text('auth.json')) as Body;
      expect(auth.workspaces[0].id).toBe(alice.workspace.id);
      expect(auth.users.map((u: Body) => u.email)).toEqual([alice.user.email]);
    });

    it('holds nothing of another workspace and no secret', () => {
      const everything = [...archive.values()].map((b) => b.toString('latin1')).join('\n');
      for (const id of [bob.workspace.id, bob.user.id, seen.bob.character, seen.bob.item]) expect(everything).not.toContain(id);
      expect(everything).not.toContain(bob.user.email);
      const json = [...archive.entries()].filter(([name]) => name.endsWith('.json')).map(([, b]) => b.toString('utf8')).join('\n');
      for (const secret of ['password_hash', 'token_hash', 'key_hash', 'access_token_enc', 'refresh_token_enc', 'secret_sealed', '$argon2', '$scrypt']) {
        expect(json).not.toContain(secret);
      }
    });

    it('refuses a tampered or re-dated download URL with 403', async () => {
      const url = new URL(downloadUrl);
      const sig = url.searchParams.get('signature')!;
      url.searchParams.set('signature', `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
      expect((await fetchUrl(url.toString())).status).toBe(403);
      const later = new URL(downloadUrl);
      later.searchParams.set('expires', String(Number(later.searchParams.get('expires')) + 3600));
      expect((await fetchUrl(later.toString())).status).toBe(403);
      const other = new URL(downloadUrl);
      other.pathname = other.pathname.replace(exportId, missingId('exp'));
      expect((await fetchUrl(other.toString())).status).toBe(403);
    });

    it("answers 404 for another workspace's export, an unknown id and a malformed one; 401 without a session", async () => {
      for (const [auth, id] of [[bob.auth, exportId], [alice.auth, missingId('exp')], [alice.auth, 'exp_nope'], [alice.auth, missingId('job')]] as const) {
        const res = await get(auth, `/auth/exports/${id}`);
        expect([id, res.status, res.body.code]).toEqual([id, 404, 'not_found']);
      }
      expect((await api(server).get(`/auth/exports/${exportId}`)).status).toBe(401);
      expect((await api(server).post('/auth/export')).status).toBe(401);
    });

    it('is for owners only: a member gets 403 insufficient_role', async () => {
      const member = await registerUser(server);
      await inviteAndAccept(server, alice.auth, alice.workspace.id, member, 'admin');
      const asMember = await switchTo(server, member.auth, alice.workspace.id);
      const res = await api(server).post('/auth/export').set(asMember);
      expect([res.status, res.body.code]).toEqual([403, 'insufficient_role']);
      expect((await get(asMember, `/auth/exports/${exportId}`)).status).toBe(403);
      // Leave Alice alone in her workspace again for the deletion cases below.
      expect((await api(server).delete(`/organizations/${alice.workspace.id}/members/${member.user.id}`).set(alice.auth)).status).toBe(204);
    });

    it('takes only a JSON body it knows: unknown fields are 400', async () => {
      const res = await api(server).post('/auth/export').set(alice.auth).send({ include: 'everything' });
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    });

    it('allows 3 exports a day per workspace, then 429 with Retry-After', async () => {
      for (let i = 0; i < 2; i++) expect((await api(server).post('/auth/export').set(alice.auth)).status).toBe(202);
      const refused = await api(server).post('/auth/export').set(alice.auth);
      expect([refused.status, refused.body.code]).toEqual([429, 'rate_limited']);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(86_000);
      // Another workspace has its own allowance.
      expect((await api(server).post('/auth/export').set(bob.auth)).status).toBe(202);
    });
  });

  describe('deletion', () => {
    it('refuses a missing, wrong-typed or unknown-field body with 400, a wrong password with 401, no session with 401', async () => {
      const user = await registerUser(server);
      for (const body of [{}, { password: 12 }, { password: PASSWORD, now: true }]) {
        const res = await api(server).delete('/auth/account').set(user.auth).send(body);
        expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), 400, 'validation_failed']);
      }
      const wrong = await api(server).delete('/auth/account').set(user.auth).send({ password: 'not-the-password' });
      expect([wrong.status, wrong.body.code]).toEqual([401, 'invalid_credentials']);
      expect((await api(server).delete('/auth/account').send({ password: PASSWORD })).status).toBe(401);
      // Nothing was scheduled: the session still works.
      expect((await get(user.auth, '/auth/me')).status).toBe(200);
    });

    it('takes JSON only: a form-encoded or text body (what a cross-site form can send) schedules nothing', async () => {
      const user = await registerUser(server);
      const form = await api(server).delete('/auth/account').set(user.auth).set('Content-Type', 'application/x-www-form-urlencoded').send(`password=${PASSWORD}`);
      expect([form.status, form.body.code]).toEqual([415, 'unsupported_media_type']);
      // A text body is not parsed at all: the password is missing.
      const text = await api(server).delete('/auth/account').set(user.auth).set('Content-Type', 'text/plain').send(`{"password":"${PASSWORD}"}`);
      expect([text.status, text.body.code]).toEqual([400, 'validation_failed']);
      // The export takes no fields, so a form's field is refused before its type is.
      const exp = await api(server).post('/auth/export').set(user.auth).set('Content-Type', 'application/x-www-form-urlencoded').send('a=1');
      expect([exp.status, exp.body.code]).toEqual([400, 'validation_failed']);
      expect((await get(user.auth, '/auth/me')).status).toBe(200);
    });

    it('limits password guessing: after 10 wrong passwords even the right one is 429 with Retry-After', async () => {
      const user = await registerUser(server);
      for (let i = 0; i < 10; i++) expect((await api(server).delete('/auth/account').set(user.auth).send({ password: `wrong-${i}-password` })).status).toBe(401);
      const res = await api(server).delete('/auth/account').set(user.auth).send({ password: PASSWORD });
      expect([res.status, res.body.code]).toEqual([429, 'rate_limited']);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect((await get(user.auth, '/auth/me')).status).toBe(200);
    });

    it('answers 409 workspace_has_members to the only owner of a workspace with other members', async () => {
      const owner = await teamOwner();
      const member = await registerUser(server);
      await inviteAndAccept(server, owner.auth, owner.workspace.id, member, 'editor');
      const res = await api(server).delete('/auth/account').set(owner.auth).send({ password: PASSWORD });
      expect([res.status, res.body.code, res.body.details]).toEqual([409, 'workspace_has_members', { workspace_id: owner.workspace.id }]);
      expect(res.body.message).toMatch(/transfer its ownership or remove its members/);
      expect((await get(owner.auth, '/auth/me')).status).toBe(200);
    });

    it('schedules the deletion (202 with the purge date), signs out everywhere, and a sign-in before the date cancels it', async () => {
      const user = await registerUser(server);
      const other = await api(server).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
      const started = Date.now();
      const res = await api(server).delete('/auth/account').set(user.auth).send({ password: PASSWORD });
      expect(res.status).toBe(202);
      expect(res.body.deletion).toEqual({ purge_at: expect.any(String), workspaces_deleted: [user.workspace.id], workspaces_left: [] });
      const grace = Date.parse(res.body.deletion.purge_at) - started;
      expect(grace).toBeGreaterThan(8_000);
      expect(grace).toBeLessThan(10_000);
      for (const auth of [user.auth, { Authorization: `Bearer ${other.body.access_token as string}` }]) expect((await get(auth, '/auth/me')).status).toBe(401);
      const refreshed = await api(server).post('/auth/refresh').send({ refresh_token: user.refreshToken });
      expect(refreshed.status).toBe(401);

      const back = await api(server).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
      expect([back.status, back.body.deletion_cancelled]).toEqual([200, true]);
      const again = await api(server).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
      expect([again.status, again.body.deletion_cancelled]).toEqual([200, undefined]);
      // Past the date the account is still there.
      await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(res.body.deletion.purge_at) + 1_500 - Date.now())));
      const later = await api(server).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
      expect(later.status).toBe(200);
      expect((await get({ Authorization: `Bearer ${later.body.access_token as string}` }, '/auth/me')).body.workspace.id).toBe(user.workspace.id);
    }, 30_000);

    it('after the grace period removes every row and file of the account and the workspace it alone was in; a shared workspace stays', async () => {
      const frank = await fillWorkspace(alice, 'Spare');  // a second character in Alice's workspace: must survive
      const user = await registerUser(server);
      const own = await fillWorkspace(user, 'Frank Films');
      await inviteAndAccept(server, alice.auth, alice.workspace.id, user, 'editor');
      const exp = await api(server).post('/auth/export').set(user.auth);
      expect(exp.status).toBe(202);
      const archiveUrl = (await exportDone(user.auth, exp.body.export.id)).download_url as string;
      const files = [own.refUrl, own.mediaUrl, archiveUrl].map(storagePath);
      for (const f of files) expect([f, existsSync(f)]).toEqual([f, true]);

      const res = await api(server).delete('/auth/account').set(user.auth).send({ password: PASSWORD });
      expect(res.status).toBe(202);
      expect(res.body.deletion).toMatchObject({ workspaces_deleted: [user.workspace.id], workspaces_left: [alice.workspace.id] });
      // Signing in would cancel it: watch the files instead, then sign in once.
      await waitFor(async () => files.every((f) => !existsSync(f)), 40_000, 'the purge to delete the files');
      const login = await waitFor(async () => {
        const r = await api(server).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
        return r.status === 401 ? r : undefined;
      }, 10_000, 'the account to be gone');
      expect(login.body.code).toBe('invalid_credentials');

      // Alice's workspace and its data stay; the account is no longer a member.
      const members = await get(alice.auth, `/organizations/${alice.workspace.id}/members`);
      expect(members.status).toBe(200);
      expect(JSON.stringify(members.body)).not.toContain(user.user.id);
      expect((await get(alice.auth, `/characters/${frank.character}`)).status).toBe(200);
      expect(existsSync(storagePath(frank.refUrl))).toBe(true);
      seen.purged = { userId: user.user.id, workspaceId: user.workspace.id, character: own.character, item: own.item };
    }, 120_000);

    it('leaves no row anywhere in the database that names the purged user or workspace', async () => {
      const purged = seen.purged as Body;
      expect(purged).toBeDefined();
      if (!backing.env.DATABASE_URL) await server.stop();
      const found = await scanDatabase(backing, [purged.userId, purged.workspaceId, purged.character, purged.item]);
      expect(found).toEqual([]);
      // The scan does find what remains: Alice's workspace.
      expect((await scanDatabase(backing, [alice.workspace.id])).length).toBeGreaterThan(3);
    }, 60_000);
  });
});
