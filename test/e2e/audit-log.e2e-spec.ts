// @e2e services-only: reads the audit rows with SQL, so its server runs on PostgreSQL + Redis in both passes.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import sharp from 'sharp';
import { api, connectSandbox, grantCredits, loginAdmin, missingId, registerUser, root, setPlan, type TestUser } from '../helpers/api.js';
import { toneWav } from '../helpers/media.js';
import { ADMIN_EMAIL, createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';

type Row = Record<string, any>;
type Auth = { Authorization: string };
interface Actor {
  id: string;
  email: string;
}

const ENV = { RUN_JOBS_IN_API: 'true', AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50', LORA_PROVIDER: 'local', VOICE_PROVIDER: 'local', SELFHOSTED_HEALTH_INTERVAL_MS: '0' };
const ENDPOINT_SECRET = 'gpu-operator:audit-s3cret-7c1e';

let seq = 0;
/** A fresh request id per HTTP call: the entry a call wrote is found by it. */
function rid(tag: string): string {
  seq += 1;
  return `audit-${tag}-${process.pid}-${seq}`;
}

function trainingPng(i: number): Promise<Buffer> {
  return sharp({ create: { width: 40 + i, height: 48, channels: 3, background: { r: (90 + i * 13) % 256, g: (40 + i * 29) % 256, b: (10 + i * 7) % 256 } } })
    .png()
    .toBuffer();
}

/**
 * Each audited change (contract §14) made through HTTP writes exactly one audit_log row, in the
 * right workspace, naming the actor, the target and the request id; a refused change writes none.
 * The rows are read straight from PostgreSQL (the audit route belongs to another part), so this
 * file always runs against a services database, in both E2E modes.
 */
describe('audit log wiring', () => {
  let backing: Backing;
  let server: TestServer;
  let db: pg.Client;
  let admin: Auth;
  let adminActor: Actor;
  let adminWorkspaceId: string;
  let owner: TestUser;
  let buyer: TestUser;

  const actorOf = (u: TestUser): Actor => ({ id: u.user.id, email: u.user.email });
  const entries = async (requestId: string): Promise<Row[]> => (await db.query('SELECT * FROM audit_log WHERE request_id = $1', [requestId])).rows;
  const expectNone = async (requestId: string) => expect(await entries(requestId)).toEqual([]);
  async function expectOne(requestId: string, want: { workspaceId: string; actor: Actor; action: string; targetType: string; targetId?: unknown; details?: Row }): Promise<Row> {
    const rows = await entries(requestId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      workspace_id: want.workspaceId,
      actor_user_id: want.actor.id,
      actor_email: want.actor.email,
      action: want.action,
      target_type: want.targetType,
      target_id: 'targetId' in want ? want.targetId : expect.any(String),
      request_id: requestId,
      ...(want.details ? { details: want.details } : {}),
    });
    return rows[0];
  }
  const as = (auth: Auth, requestId: string) => ({
    get: (path: string) => api(server).get(path).set(auth).set('X-Request-Id', requestId),
    post: (path: string, body?: object) => api(server).post(path).set(auth).set('X-Request-Id', requestId).send(body),
    put: (path: string, body?: object) => api(server).put(path).set(auth).set('X-Request-Id', requestId).send(body),
    patch: (path: string, body?: object) => api(server).patch(path).set(auth).set('X-Request-Id', requestId).send(body),
    delete: (path: string) => api(server).delete(path).set(auth).set('X-Request-Id', requestId),
  });
  const createCharacter = async (user: TestUser, name: string): Promise<string> => {
    const res = await api(server).post('/characters').set(user.auth).send({ name, niche: 'travel', appearance: { aesthetic: 'soft daylight' } });
    expect(res.status).toBe(201);
    return res.body.character.id as string;
  };

  beforeAll(async () => {
    backing = await createBacking({ services: true });
    server = await startServer(backing, ENV);
    db = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    await db.connect();
    admin = await loginAdmin(server);
    const me = await api(server).get('/auth/me').set(admin);
    adminActor = { id: me.body.user.id, email: ADMIN_EMAIL };
    adminWorkspaceId = me.body.workspace.id;
    [owner, buyer] = await Promise.all([registerUser(server), registerUser(server)]);
  }, 90_000);
  afterAll(async () => {
    await db?.end();
    await server?.stop();
    await backing?.cleanup();
  });

  describe('platform admin changes, recorded in the target workspace', () => {
    it('a plan change names the plan left and the plan set; an unknown workspace records nothing', async () => {
      const id = rid('plan');
      expect((await as(admin, id).patch(`/admin/workspaces/${owner.workspace.id}`, { plan: 'agency' })).status).toBe(200);
      await expectOne(id, { workspaceId: owner.workspace.id, actor: adminActor, action: 'plan.changed', targetType: 'workspace', targetId: owner.workspace.id, details: { from: 'starter', to: 'agency' } });
      const missing = rid('plan-missing');
      expect((await as(admin, missing).patch(`/admin/workspaces/${missingId('ws')}`, { plan: 'pro' })).status).toBe(404);
      await expectNone(missing);
    });

    it('a credit grant names the amount and the reason; a debit past the balance records nothing', async () => {
      const id = rid('credits');
      expect((await as(admin, id).post(`/admin/workspaces/${owner.workspace.id}/credits`, { amount: 3000, reason: 'launch bonus' })).status).toBe(201);
      await expectOne(id, { workspaceId: owner.workspace.id, actor: adminActor, action: 'credits.granted', targetType: 'workspace', targetId: owner.workspace.id, details: { amount: 3000, reason: 'launch bonus' } });
      const refused = rid('credits-refused');
      expect((await as(admin, refused).post(`/admin/workspaces/${buyer.workspace.id}/credits`, { amount: -1_000_000, reason: 'too much' })).status).toBe(402);
      await expectNone(refused);
    });
  });

  describe('API keys', () => {
    it('creation names the key and its scopes, never the secret; revocation is one entry; a bad key records nothing', async () => {
      const bad = rid('key-bad');
      expect((await as(owner.auth, bad).post('/api-keys', { name: 'CRM', scopes: [] })).status).toBe(400);
      await expectNone(bad);
      const made = rid('key-create');
      const res = await as(owner.auth, made).post('/api-keys', { name: 'CRM', scopes: ['credits:read'] });
      expect(res.status).toBe(201);
      const keyId = res.body.api_key.id as string;
      const row = await expectOne(made, { workspaceId: owner.workspace.id, actor: actorOf(owner), action: 'api_key.created', targetType: 'api_key', targetId: keyId, details: { name: 'CRM', scopes: ['credits:read'] } });
      expect(JSON.stringify(row)).not.toContain(res.body.key);
      const revoked = rid('key-revoke');
      expect((await as(owner.auth, revoked).delete(`/api-keys/${keyId}`)).status).toBe(204);
      await expectOne(revoked, { workspaceId: owner.workspace.id, actor: actorOf(owner), action: 'api_key.revoked', targetType: 'api_key', targetId: keyId });
    });
  });

  describe('integrations', () => {
    it('the open OAuth callback records the user who started the flow; disconnect is one entry; a bad state records nothing', async () => {
      const authUrl = await api(server).get('/integrations/instagram/auth-url').query({ redirect: '/settings/integrations' }).set(owner.auth);
      expect(authUrl.status).toBe(200);
      const consent = new URL(authUrl.body.url as string);
      const back = await root(server).get(`${consent.pathname}${consent.search}`).redirects(0);
      expect(back.status).toBe(302);
      const callback = new URL(back.headers.location);
      const forged = rid('callback-forged');
      const badState = await root(server).get(`${callback.pathname}?code=x&state=forged`).set('X-Request-Id', forged).redirects(0);
      expect(badState.status).toBe(400);
      await expectNone(forged);
      const connected = rid('callback');
      const done = await root(server).get(`${callback.pathname}${callback.search}`).set('X-Request-Id', connected).redirects(0);
      expect(done.status).toBe(302);
      expect(new URL(done.headers.location).searchParams.get('connected')).toBe('instagram');
      const row = await expectOne(connected, { workspaceId: owner.workspace.id, actor: actorOf(owner), action: 'integration.connected', targetType: 'integration', details: { platform: 'instagram' } });
      expect(row.target_id).toMatch(/^int_/);
      const gone = rid('disconnect');
      expect((await as(owner.auth, gone).delete('/integrations/instagram')).status).toBe(204);
      await expectOne(gone, { workspaceId: owner.workspace.id, actor: actorOf(owner), action: 'integration.disconnected', targetType: 'integration', targetId: row.target_id, details: { platform: 'instagram' } });
      const again = rid('disconnect-again');
      expect((await as(owner.auth, again).delete('/integrations/instagram')).status).toBe(204);
      await expectNone(again);
    });
  });

  describe('marketplace', () => {
    it('listing create, update and delete each record one entry in the seller workspace', async () => {
      const characterId = await createCharacter(owner, 'Ines Laurent');
      const created = rid('listing-create');
      const res = await as(owner.auth, created).post('/marketplace/listings', { character_id: characterId, price: 5, currency: 'credits', license_type: 'personal', status: 'active' });
      expect(res.status).toBe(201);
      const listingId = res.body.listing.id as string;
      const seller = { workspaceId: owner.workspace.id, actor: actorOf(owner), targetType: 'listing', targetId: listingId };
      await expectOne(created, { ...seller, action: 'listing.created', details: { character_id: characterId, status: 'active', price_credits: 5 } });
      const updated = rid('listing-update');
      expect((await as(owner.auth, updated).put(`/marketplace/listings/${listingId}`, { price: 6, license_type: 'commercial' })).status).toBe(200);
      await expectOne(updated, { ...seller, action: 'listing.updated', details: { fields: ['price', 'license_type'] } });
      const removed = rid('listing-delete');
      expect((await as(owner.auth, removed).delete(`/marketplace/listings/${listingId}`)).status).toBe(204);
      await expectOne(removed, { ...seller, action: 'listing.deleted' });
      const twice = rid('listing-delete-again');
      expect((await as(owner.auth, twice).delete(`/marketplace/listings/${listingId}`)).status).toBe(404);
      await expectNone(twice);
    });

    it('a purchase records one entry in the buyer workspace; a 402 purchase records none', async () => {
      const characterId = await createCharacter(owner, 'Noor Haddad');
      const listing = await api(server).post('/marketplace/listings').set(owner.auth).send({ character_id: characterId, price: 80, currency: 'credits', license_type: 'personal', status: 'active' });
      expect(listing.status).toBe(201);
      const listingId = listing.body.listing.id as string;
      const poor = rid('purchase-402');
      expect((await as(buyer.auth, poor).post(`/marketplace/${listingId}/purchase`)).status).toBe(402);
      await expectNone(poor);
      expect((await api(server).post(`/admin/workspaces/${buyer.workspace.id}/credits`).set(admin).send({ amount: 100, reason: 'e2e' })).status).toBe(201);
      const bought = rid('purchase');
      const res = await as(buyer.auth, bought).post(`/marketplace/${listingId}/purchase`);
      expect(res.status).toBe(201);
      await expectOne(bought, {
        workspaceId: buyer.workspace.id, actor: actorOf(buyer), action: 'purchase.completed', targetType: 'purchase', targetId: res.body.purchase.id,
        details: { listing_id: listingId, price: 80 },
      });
    });
  });

  describe('LoRA', () => {
    it('a training start is one entry; a training refused for too few images records none', async () => {
      const characterId = await createCharacter(owner, 'Kai Moreno');
      const early = rid('train-refused');
      expect((await as(owner.auth, early).post(`/characters/${characterId}/lora/train`, { base_model: 'flux-dev' })).status).toBe(409);
      await expectNone(early);
      const upload = api(server).post(`/characters/${characterId}/lora/images`).set(owner.auth);
      const files = await Promise.all(Array.from({ length: 10 }, (_, i) => trainingPng(i)));
      files.forEach((bytes, i) => void upload.attach('images', bytes, { filename: `img${i}.png`, contentType: 'image/png' }));
      expect((await upload).status).toBe(201);
      const started = rid('train');
      const res = await as(owner.auth, started).post(`/characters/${characterId}/lora/train`, { base_model: 'flux-dev' });
      expect(res.status).toBe(202);
      await expectOne(started, {
        workspaceId: owner.workspace.id, actor: actorOf(owner), action: 'lora.training_started', targetType: 'lora', targetId: res.body.lora.id,
        details: { character_id: characterId, base_model: 'flux-dev', credits: res.body.lora.credits_charged },
      });
    });
  });

  describe('self-hosted routing, recorded in the admin own workspace', () => {
    it('routing, endpoint add, change and remove are one entry each, never with the endpoint key; a refused endpoint records none', async () => {
      const inAdmin = { workspaceId: adminWorkspaceId, actor: adminActor };
      const routing = rid('routing');
      expect((await as(admin, routing).put('/admin/selfhosted/routing', { enabled: true, routing_percentage: 25 })).status).toBe(200);
      await expectOne(routing, { ...inAdmin, action: 'selfhosted.routing_changed', targetType: 'selfhosted_routing', targetId: null, details: { enabled: true, routing_percentage: 25 } });
      const refused = rid('endpoint-refused');
      expect((await as(admin, refused).post('/admin/selfhosted/endpoints', { name: 'gpu', kind: 'a1111', url: 'ftp://127.0.0.1:1' })).status).toBe(400);
      await expectNone(refused);
      const added = rid('endpoint-add');
      const res = await as(admin, added).post('/admin/selfhosted/endpoints', { name: 'rack-1', kind: 'a1111', url: 'http://127.0.0.1:9', api_key: ENDPOINT_SECRET });
      expect(res.status).toBe(201);
      const endpointId = res.body.endpoint.id as string;
      const endpoint = { ...inAdmin, targetType: 'selfhosted_endpoint', targetId: endpointId };
      const addedRow = await expectOne(added, { ...endpoint, action: 'selfhosted.endpoint_added', details: { name: 'rack-1', kind: 'a1111', status: 'active' } });
      const changed = rid('endpoint-change');
      expect((await as(admin, changed).patch(`/admin/selfhosted/endpoints/${endpointId}`, { max_concurrency: 3, api_key: `${ENDPOINT_SECRET}-2` })).status).toBe(200);
      const changedRow = await expectOne(changed, { ...endpoint, action: 'selfhosted.endpoint_changed', details: { fields: ['max_concurrency', 'api_key'] } });
      expect(JSON.stringify([addedRow, changedRow])).not.toContain(ENDPOINT_SECRET);
      const removed = rid('endpoint-remove');
      expect((await as(admin, removed).delete(`/admin/selfhosted/endpoints/${endpointId}`)).status).toBe(204);
      await expectOne(removed, { ...endpoint, action: 'selfhosted.endpoint_removed' });
    });
  });
  /**
   * The changes of issue 24 (item 5), read back the way a workspace admin reads them: through
   * GET /organizations/{id}/audit-log, each found by the request id of the call that made it.
   */
  describe('read through GET /organizations/{id}/audit-log', () => {
    let editor: TestUser;
    let reader: Auth;

    /** A second session of `user`, so the log stays readable after the tested one ends. */
    const secondSession = async (user: TestUser): Promise<Auth> => {
      const res = await api(server).post('/auth/login').send({ email: user.user.email, password: 'correct-horse-battery' });
      expect(res.status).toBe(200);
      return { Authorization: `Bearer ${res.body.access_token as string}` };
    };
    const logged = async (workspaceId: string, auth: Auth, requestId: string): Promise<Row[]> => {
      const res = await api(server).get(`/organizations/${workspaceId}/audit-log`).query({ limit: 200 }).set(auth);
      expect(res.status).toBe(200);
      return (res.body.entries as Row[]).filter((e) => e.request_id === requestId);
    };
    async function expectLogged(requestId: string, want: { action: string; targetType: string; targetId: unknown; details?: Row }, user = editor, auth = reader): Promise<Row> {
      const rows = await logged(user.workspace.id, auth, requestId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        actor_user_id: user.user.id, actor_email: user.user.email, action: want.action, target_type: want.targetType, target_id: want.targetId,
        ...(want.details ? { details: want.details } : {}),
      });
      return rows[0];
    }
    const expectNothingLogged = async (requestId: string, user = editor, auth = reader) => expect(await logged(user.workspace.id, auth, requestId)).toEqual([]);
    const sessionOf = (accessToken: string): string => JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()).sid as string;
    const itemStatus = async (id: string): Promise<string | undefined> => (await api(server).get(`/content/${id}`).set(editor.auth)).body.item?.status as string | undefined;

    beforeAll(async () => {
      editor = await registerUser(server);
      reader = await secondSession(editor);
      await setPlan(server, admin, editor.workspace.id, 'pro');
      await grantCredits(server, admin, editor.workspace.id, 2000);
    }, 60_000);

    it('a character deletion names the character; deleting it again (404) records nothing', async () => {
      const characterId = await createCharacter(editor, 'Lea Brandt');
      const id = rid('character-delete');
      expect((await as(editor.auth, id).delete(`/characters/${characterId}`)).status).toBe(204);
      await expectLogged(id, { action: 'character.deleted', targetType: 'character', targetId: characterId, details: { name: 'Lea Brandt' } });
      const again = rid('character-delete-again');
      expect((await as(editor.auth, again).delete(`/characters/${characterId}`)).status).toBe(404);
      await expectNothingLogged(again);
    });

    it('reject, approve, per-medium review, publish-now and content deletion are one entry each; a refused approve records nothing', async () => {
      const characterId = await createCharacter(editor, 'Omar Reyes');
      await connectSandbox(server, editor, 'instagram');
      const generated = await api(server).post('/content/generate').set(editor.auth).send({ character_id: characterId, platform: 'instagram', prompt: 'Harbour at dawn' });
      expect(generated.status).toBe(201);
      const itemId = generated.body.item.id as string;
      await waitFor(async () => (await itemStatus(itemId)) === 'ready', 60_000, 'the item to be ready');
      const review = (action: string, requestId: string, body?: object) => as(editor.auth, requestId).post(`/characters/${characterId}/content/${itemId}/${action}`, body);
      const onItem = { targetType: 'content', targetId: itemId };

      const rejected = rid('reject');
      expect((await review('reject', rejected, { reason: 'off brand' })).status).toBe(200);
      await expectLogged(rejected, { ...onItem, action: 'content.rejected', details: { character_id: characterId, from: 'ready', to: 'rejected', reason: 'off brand' } });
      const approved = rid('approve');
      expect((await review('approve', approved)).status).toBe(200);
      await expectLogged(approved, { ...onItem, action: 'content.approved', details: { character_id: characterId, from: 'rejected', to: 'approved' } });
      const refused = rid('approve-refused');
      expect((await review('approve', refused)).status).toBe(409);
      await expectNothingLogged(refused);
      const medium = rid('media-approve');
      const mediumRes = await review('media/0/approve', medium);
      expect(mediumRes.status).toBe(200);
      await expectLogged(medium, { ...onItem, action: 'content.media_reviewed', details: { media_index: 0, decision: 'approve', from: 'approved', to: mediumRes.body.item.status } });

      const scheduled = await api(server).post(`/content/${itemId}/schedule`).set(editor.auth).send({ scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
      expect(scheduled.status).toBe(201);
      const postId = scheduled.body.scheduled_posts[0].id as string;
      const published = rid('publish-now');
      expect((await as(editor.auth, published).post(`/schedule/${postId}/publish-now`)).status).toBe(200);
      await expectLogged(published, { action: 'post.publish_requested', targetType: 'scheduled_post', targetId: postId, details: { content_id: itemId, platform: 'instagram' } });
      const twice = rid('publish-now-again');
      expect((await as(editor.auth, twice).post(`/schedule/${postId}/publish-now`)).status).toBe(409);
      await expectNothingLogged(twice);

      const removed = rid('content-delete');
      expect((await as(editor.auth, removed).delete(`/content/${itemId}`)).status).toBe(204);
      await expectLogged(removed, { ...onItem, action: 'content.deleted', details: { character_id: characterId, status: 'published', platform: 'instagram' } });
    });

    it('a LoRA removal names the LoRA and the character', async () => {
      const characterId = await createCharacter(editor, 'Mila Novak');
      const upload = api(server).post(`/characters/${characterId}/lora/images`).set(editor.auth);
      const files = await Promise.all(Array.from({ length: 10 }, (_, i) => trainingPng(i)));
      files.forEach((bytes, i) => void upload.attach('images', bytes, { filename: `img${i}.png`, contentType: 'image/png' }));
      expect((await upload).status).toBe(201);
      const trained = await api(server).post(`/characters/${characterId}/lora/train`).set(editor.auth).send({ base_model: 'flux-dev' });
      expect(trained.status).toBe(202);
      // Removed once its training settled: a removal racing the training's start answered 500 once in
      // an embedded CI run (not reproduced since); that race is its own open question, not this audit check.
      await waitFor(async () => (await api(server).get(`/characters/${characterId}/lora`).set(editor.auth)).body.lora?.status === 'ready', 60_000, 'the LoRA to be ready');
      const removed = rid('lora-delete');
      expect((await as(editor.auth, removed).delete(`/characters/${characterId}/lora`)).status).toBe(204);
      const row = await expectLogged(removed, { action: 'lora.deleted', targetType: 'lora', targetId: trained.body.lora.id, details: { character_id: characterId } });
      expect(['queued', 'training', 'ready']).toContain(row.details.was);
    });

    it('a voice clone names the character, the job and the sample count; a refused clone records nothing', async () => {
      const characterId = await createCharacter(editor, 'Ivo Santos');
      const refused = rid('clone-refused');
      expect((await as(editor.auth, refused).post(`/characters/${characterId}/voice-clone`, { name: 'Ivo' })).status).toBe(400);
      await expectNothingLogged(refused);
      const started = rid('clone');
      const req = api(server).post(`/characters/${characterId}/voice-clone`).set(editor.auth).set('X-Request-Id', started).field('name', 'Ivo warm');
      [toneWav(140, 2, { pulseHz: 4 }), toneWav(150, 2, { pulseHz: 4 })].forEach((f, i) => void req.attach('samples', f, { filename: `s${i}.wav`, contentType: 'audio/wav' }));
      const res = await req;
      expect(res.status).toBe(202);
      await expectLogged(started, { action: 'voice.clone_started', targetType: 'character', targetId: characterId, details: { name: 'Ivo warm', samples: 2, credits: 50, job_id: res.body.job.id } });
    });

    it('sign-in and sign-out name the session, never the password; a wrong password records nothing', async () => {
      const user = await registerUser(server);
      const watcher = await secondSession(user);
      const wrong = rid('login-wrong');
      expect((await api(server).post('/auth/login').set('X-Request-Id', wrong).send({ email: user.user.email, password: 'not-the-password-1' })).status).toBe(401);
      await expectNothingLogged(wrong, user, watcher);
      const signedIn = rid('login');
      const login = await api(server).post('/auth/login').set('X-Request-Id', signedIn).set('User-Agent', 'audit-e2e/1.0').send({ email: user.user.email, password: 'correct-horse-battery' });
      expect(login.status).toBe(200);
      const sessionId = sessionOf(login.body.access_token as string);
      const row = await expectLogged(signedIn, { action: 'auth.login', targetType: 'session', targetId: sessionId, details: { user_agent: 'audit-e2e/1.0' } }, user, watcher);
      expect(row.details.ip).toEqual(expect.any(String));
      expect(JSON.stringify(row)).not.toContain('correct-horse-battery');
      const signedOut = rid('logout');
      expect((await api(server).post('/auth/logout').set({ Authorization: `Bearer ${login.body.access_token as string}` }).set('X-Request-Id', signedOut).send({})).status).toBe(204);
      await expectLogged(signedOut, { action: 'auth.logout', targetType: 'session', targetId: sessionId, details: {} }, user, watcher);
    });

    it('a reused refresh token ends its session, is recorded against the token owner and logs one JSON warn line', async () => {
      const user = await registerUser(server);
      const watcher = await secondSession(user);
      const sessionId = sessionOf(user.token);
      expect((await api(server).post('/auth/refresh').send({ refresh_token: user.refreshToken })).status).toBe(200);
      const reused = rid('refresh-reused');
      const res = await api(server).post('/auth/refresh').set('X-Request-Id', reused).send({ refresh_token: user.refreshToken });
      expect([res.status, res.body.code]).toEqual([401, 'refresh_token_reused']);
      const row = await expectLogged(reused, { action: 'auth.refresh_token_reused', targetType: 'session', targetId: sessionId }, user, watcher);
      expect(JSON.stringify(row)).not.toContain(user.refreshToken);
      const warned = await waitFor(async () => {
        const lines = server.output.join('').split('\n').filter((l) => l.startsWith('{') && l.endsWith('}'));
        return lines.map((l) => JSON.parse(l) as Row).find((l) => l.level === 'warn' && l.session_id === sessionId);
      }, 5_000, 'the reuse warn line');
      expect(warned).toMatchObject({ level: 'warn', msg: 'refresh token reused; session ended', user_id: user.user.id, workspace_id: user.workspace.id });
      expect(JSON.stringify(warned)).not.toContain(user.refreshToken);
    });
  });
});
