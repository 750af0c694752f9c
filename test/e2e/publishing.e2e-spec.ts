import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { api, grantCredits, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { authedSocket, type TestSocket } from '../helpers/socket.js';
import { startFakeReplicate, type FakeReplicate } from '../fakes/replicate-server.js';

/**
 * Publishing through HTTP in sandbox mode (no platform credentials, contract §8): connections
 * and the OAuth flow, scheduling, schedule planning, listing, publish-now, the dispatcher, the
 * public publish route and the calendar.
 */

type Item = Record<string, any>;

const APP_URL = 'https://app.e2e.test';
const PUBLIC_URL = 'https://api.e2e.test';
const TOKEN = 'r8_publishing_test_token';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const POST_ID = /^sch_[0-9A-HJKMNP-TV-Z]{26}$/;
const HOUR = 3600_000;
/** Far enough ahead that the dispatcher never touches these posts. */
const START = '2031-03-03T00:00:00Z';
const at = (hoursAfterStart: number): string => new Date(Date.parse(START) + hoursAfterStart * HOUR).toISOString();

const PLATFORMS = ['instagram', 'tiktok', 'twitter', 'youtube', 'pinterest'] as const;
const ALIASES: Record<string, string> = {
  photo_share: 'instagram', short_video: 'tiktok', microblog: 'twitter', x: 'twitter', video_share: 'youtube', pinboard: 'pinterest',
};
const ALL_NAMES = [...PLATFORMS, ...Object.keys(ALIASES)];
const canonical = (name: string): string => ALIASES[name] ?? name;
const POST_KEYS = [
  'attempts', 'character_id', 'content_id', 'created_at', 'error', 'id', 'media_urls', 'next_attempt_at', 'platform', 'published_at',
  'remote_post_id', 'remote_url', 'scheduled_at', 'status', 'updated_at',
].sort();
const INTEGRATION_KEYS = ['account', 'connected', 'connected_at', 'default_board_id', 'expires_at', 'mode', 'platform', 'scopes', 'status'].sort();
/** The product's good posting hours (local), where a platform without stagger (Instagram) posts. */
const INSTAGRAM_SLOTS = ['09:00', '13:00', '17:00', '21:00'];

const disconnected = (platform: string): Item => ({
  platform, connected: false, status: 'disconnected', mode: 'sandbox', account: null, scopes: [], connected_at: null, expires_at: null, default_board_id: null,
});

/** HH:MM of an instant in a time zone. */
function localTime(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** A media URL without its signature: platforms get URLs signed for longer than reads show. */
const pathOf = (url: string): string => new URL(url).pathname;

describe('publishing (sandbox mode)', () => {
  let fake: FakeReplicate;
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let admin: { Authorization: string };
  let alice: TestUser;
  let bob: TestUser;
  /** Alice's characters: `studio` approves everything (autopilot); `manual` needs approval. */
  let studio: string;
  let manual: string;
  const sockets: TestSocket[] = [];

  /** A URL the service built on its PUBLIC_URL, asked of the test server; redirects are not followed. */
  const onServer = (url: URL) => request(`http://127.0.0.1:${server.port}`).get(`${url.pathname}${url.search}`).redirects(0);

  const createCharacter = async (user: TestUser, body: Record<string, unknown> = {}): Promise<string> => {
    const res = await api(server).post('/characters').set(user.auth).send({ name: 'Ines', niche: 'fashion', ...body });
    expect(res.status).toBe(201);
    return res.body.character.id as string;
  };
  const getItem = async (user: TestUser, id: string): Promise<Item> => (await api(server).get(`/content/${id}`).set(user.auth)).body.item as Item;
  const waitForItem = (user: TestUser, id: string, statuses: string[], timeoutMs = 30_000): Promise<Item> =>
    waitFor(async () => {
      const item = await getItem(user, id);
      return statuses.includes(item?.status) ? item : undefined;
    }, timeoutMs, `item ${id} to be ${statuses.join('|')}`);
  const generate = async (user: TestUser, characterId: string, body: Record<string, unknown> = {}): Promise<Item> => {
    const res = await api(server).post('/content/generate').set(user.auth).send({ character_id: characterId, platform: 'instagram', prompt: 'Linen suit at golden hour', ...body });
    expect(res.status).toBe(201);
    return res.body.item as Item;
  };
  /** Items of an autopilot character, generated together and waited for until approved. */
  const approvedItems = async (count: number, characterId = studio, body: Record<string, unknown> = {}, user = alice): Promise<Item[]> => {
    const started = await Promise.all(Array.from({ length: count }, () => generate(user, characterId, body)));
    return Promise.all(started.map((i) => waitForItem(user, i.id, ['approved'])));
  };
  const approvedItem = async (characterId = studio, body: Record<string, unknown> = {}, user = alice): Promise<Item> => (await approvedItems(1, characterId, body, user))[0];
  const readyItem = async (): Promise<Item> => waitForItem(alice, (await generate(alice, manual)).id, ['ready']);

  const schedule = (user: TestUser, contentId: string, body: Record<string, unknown>) =>
    api(server).post(`/content/${contentId}/schedule`).set(user.auth).send(body);
  const scheduleOne = async (contentId: string, scheduledAt: string, platforms?: string[]): Promise<Item> => {
    const res = await schedule(alice, contentId, { scheduled_at: scheduledAt, ...(platforms ? { platforms } : {}) });
    expect(res.status).toBe(201);
    return res.body.scheduled_posts[0] as Item;
  };
  const listPosts = async (user: TestUser, query: string, path = '/schedule'): Promise<Item> => {
    const res = await api(server).get(`${path}?${query}`).set(user.auth);
    expect(res.status).toBe(200);
    return res.body as Item;
  };
  const integration = async (user: TestUser, name: string): Promise<Item> => {
    const res = await api(server).get(`/integrations/${name}`).set(user.auth);
    expect(res.status).toBe(200);
    return res.body.integration as Item;
  };

  /** The first leg of the OAuth flow: the consent URL and its signed state. */
  const startFlow = async (user: TestUser, name: string, redirect = '/settings/integrations'): Promise<{ url: URL; state: string }> => {
    const res = await api(server).get(`/integrations/${name}/auth-url`).query({ redirect }).set(user.auth);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['url']);
    const url = new URL(res.body.url as string);
    return { url, state: url.searchParams.get('state')! };
  };
  /** The sandbox consent screen agrees at once: 302 to the callback with a code and the same state. */
  const consent = async (flow: { url: URL }): Promise<URL> => {
    const res = await onServer(flow.url);
    expect(res.status).toBe(302);
    return new URL(res.headers.location);
  };
  const callback = (name: string, query: Record<string, string>) =>
    request(`http://127.0.0.1:${server.port}`).get(`/api/v1/integrations/${name}/callback`).query(query).redirects(0);
  /** Runs the whole flow; answers where the callback sent the browser. */
  const connect = async (user: TestUser, name: string, redirect = '/settings/integrations'): Promise<string> => {
    const back = await consent(await startFlow(user, name, redirect));
    const res = await onServer(back);
    expect(res.status).toBe(302);
    return res.headers.location;
  };

  beforeAll(async () => {
    fake = await startFakeReplicate({ token: TOKEN });
    backing = await createBacking();
    const env = {
      AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50', MEDIA_PROVIDER: 'replicate', REPLICATE_API_URL: fake.url,
      REPLICATE_API_TOKEN: TOKEN, OUTBOUND_ALLOW_HOSTS: '127.0.0.1', APP_URL, PUBLIC_URL, PUBLISH_DISPATCH_INTERVAL_MS: '200',
    };
    server = await startServer(backing, env);
    if (E2E_MODE === 'services') worker = await startWorker(backing, env);
    admin = await loginAdmin(server);
    [alice, bob] = await Promise.all([registerUser(server), registerUser(server)]);
    // Agency: room for the characters below, and API keys for the public API.
    await setPlan(server, admin, alice.workspace.id, 'agency');
    await Promise.all([grantCredits(server, admin, alice.workspace.id, 2000), grantCredits(server, admin, bob.workspace.id, 200)]);
    studio = await createCharacter(alice, { name: 'Studio', settings: { autopilot: true } });
    manual = await createCharacter(alice, { name: 'Manual' });
  }, 90_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    await Promise.all([server?.stop(), worker?.stop()]);
    await fake?.close();
    await backing?.cleanup();
  });

  describe('integrations', () => {
    it('answers every platform and alias as disconnected in sandbox mode; an unknown platform is 404', async () => {
      for (const name of ALL_NAMES) {
        const view = await integration(alice, name);
        expect([name, view]).toEqual([name, disconnected(canonical(name))]);
      }
      const unknown: Array<[string, Promise<request.Response>]> = [
        ['GET', api(server).get('/integrations/myspace').set(alice.auth)],
        ['auth-url', api(server).get('/integrations/myspace/auth-url?redirect=/settings').set(alice.auth)],
        ['callback', api(server).get('/integrations/myspace/callback?code=sandbox_x&state=a.b')],
        ['DELETE', api(server).delete('/integrations/myspace').set(alice.auth)],
        ['boards', api(server).get('/integrations/myspace/boards').set(alice.auth)],
        ['default-board', api(server).patch('/integrations/myspace/default-board').set(alice.auth).send({ board_id: '1' })],
      ];
      for (const [what, pending] of unknown) {
        const res = await pending;
        expect([what, res.status, res.body.code]).toEqual([what, 404, 'not_found']);
      }
      const anonymous = await api(server).get('/integrations/instagram');
      expect([anonymous.status, anonymous.body.code]).toEqual([401, 'unauthorized']);
    });

    it('connects every platform through the sandbox consent and callback, by name or alias', async () => {
      const flows: Array<[string, string]> = [['instagram', '/settings/integrations'], ['short_video', '/settings/integrations?tab=social'], ['x', '/settings/integrations'], ['video_share', '/onboarding/connect'], ['pinboard', '/settings/integrations']];
      const before = Date.now();
      for (const [name, redirect] of flows) {
        const platform = canonical(name);
        const flow = await startFlow(alice, name, redirect);
        expect(`${flow.url.origin}${flow.url.pathname}`).toBe(`${PUBLIC_URL}/api/v1/integrations/${platform}/sandbox-consent`);
        expect(flow.state).toMatch(/^[\w-]+\.[\w-]+$/);

        const back = await consent(flow);
        expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC_URL}/api/v1/integrations/${platform}/callback`);
        expect(back.searchParams.get('state')).toBe(flow.state);
        expect(back.searchParams.get('code')).toMatch(/^sandbox_/);

        // The callback carries no bearer token: the state names the user.
        const res = await onServer(back);
        expect(res.status).toBe(302);
        const expected = new URL(redirect, APP_URL);
        expected.searchParams.append('connected', platform);
        expect(res.headers.location).toBe(expected.toString());
      }
      expect(await connect(alice, 'instagram', '/settings/integrations?tab=social')).toBe(`${APP_URL}/settings/integrations?tab=social&connected=instagram`);

      for (const name of ALL_NAMES) {
        const view = await integration(alice, name);
        expect(Object.keys(view).sort()).toEqual(INTEGRATION_KEYS);
        expect(view).toMatchObject({
          platform: canonical(name), connected: true, status: 'connected', mode: 'sandbox',
          account: { id: expect.stringContaining(canonical(name)), name: expect.any(String) }, scopes: expect.any(Array),
        });
        expect(view.connected_at).toMatch(ISO);
        expect(Date.parse(view.connected_at)).toBeGreaterThanOrEqual(before - 1000);
        expect(Date.parse(view.connected_at)).toBeLessThanOrEqual(Date.now() + 1000);
        expect(Date.parse(view.expires_at)).toBeGreaterThan(Date.now());
      }
    });

    it('refuses a reused, tampered, unsigned, missing or foreign state with 400 invalid_oauth_state', async () => {
      const expectInvalid = async (name: string, query: Record<string, string>): Promise<void> => {
        const res = await callback(name, query);
        expect([JSON.stringify(query), res.status, res.body.code, res.headers.location]).toEqual([JSON.stringify(query), 400, 'invalid_oauth_state', undefined]);
      };
      // Reused: the very callback that just connected, sent again.
      const used = await consent(await startFlow(alice, 'instagram'));
      expect((await onServer(used)).status).toBe(302);
      expect((await onServer(used)).body.code).toBe('invalid_oauth_state');
      await expectInvalid('instagram', Object.fromEntries(used.searchParams));

      // Tampered, unsigned, missing, made up: refused, and the genuine state stays usable.
      const flow = await startFlow(alice, 'instagram');
      const code = (await consent(flow)).searchParams.get('code')!;
      const [id, signature] = flow.state.split('.');
      const flip = (s: string, i: number) => `${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
      for (const state of [`${id}.${flip(signature, signature.length - 1)}`, `${flip(id, 0)}.${signature}`, id, `${id}.`, 'abc.def', '']) {
        await expectInvalid('instagram', { code, state });
      }
      await expectInvalid('instagram', { code });
      // Issued for Instagram, brought to the Twitter callback.
      const foreign = await startFlow(alice, 'instagram');
      const foreignCode = (await consent(foreign)).searchParams.get('code')!;
      await expectInvalid('twitter', { code: foreignCode, state: foreign.state });
      await expectInvalid('x', { code: foreignCode, state: foreign.state });

      const genuine = await callback('instagram', { code, state: flow.state });
      expect([genuine.status, genuine.headers.location]).toEqual([302, `${APP_URL}/settings/integrations?connected=instagram`]);
    });

    it("ignores the parameters platforms add to their callbacks (Google's authuser and prompt, TikTok's scopes, Facebook's error_reason)", async () => {
      const flow = await startFlow(bob, 'youtube', '/settings/integrations');
      const code = (await consent(flow)).searchParams.get('code')!;
      const res = await callback('youtube', { code, state: flow.state, scope: 'https://www.googleapis.com/auth/youtube.upload', authuser: '0', prompt: 'consent', hd: 'example.com', scopes: 'video.publish' });
      expect([res.status, res.headers.location]).toEqual([302, `${APP_URL}/settings/integrations?connected=youtube`]);
      const declined = await startFlow(bob, 'instagram', '/settings/integrations');
      const refused = await callback('instagram', { state: declined.state, error: 'access_denied', error_code: '200', error_reason: 'user_denied', error_description: 'Permissions error' });
      expect([refused.status, refused.headers.location]).toEqual([302, `${APP_URL}/settings/integrations?error=access_denied`]);
      // Still strict about what it reads.
      const tooLong = await callback('instagram', { state: declined.state, code: 'x'.repeat(5000) });
      expect([tooLong.status, tooLong.body.code]).toEqual([400, 'validation_failed']);
      await api(server).delete('/integrations/youtube').set(bob.auth).expect(204);
    });

    it('sends a declined consent back to the app with ?error= and connects nothing', async () => {
      const flow = await startFlow(bob, 'youtube', '/settings/integrations');
      const declined = await callback('youtube', { error: 'access_denied', error_description: 'The user said no', state: flow.state });
      expect([declined.status, declined.headers.location]).toEqual([302, `${APP_URL}/settings/integrations?error=access_denied`]);
      expect(await integration(bob, 'youtube')).toEqual(disconnected('youtube'));
      // The state was spent on the refusal.
      const again = await callback('youtube', { code: 'sandbox_late', state: flow.state });
      expect([again.status, again.body.code]).toEqual([400, 'invalid_oauth_state']);

      // A code the (sandbox) platform does not accept: back to the app with an error code.
      const bad = await startFlow(bob, 'youtube', '/settings');
      const refused = await callback('youtube', { code: 'not-a-sandbox-code', state: bad.state });
      expect(refused.status).toBe(302);
      const location = new URL(refused.headers.location);
      expect(`${location.origin}${location.pathname}`).toBe(`${APP_URL}/settings`);
      expect(location.searchParams.get('error')).toEqual(expect.any(String));
      expect(location.searchParams.get('connected')).toBeNull();
      expect(await integration(bob, 'youtube')).toEqual(disconnected('youtube'));
    });

    it('accepts only in-app redirect paths', async () => {
      for (const redirect of ['//evil.com', 'https://evil.com/x', 'evil', '/\\evil', '\\\\evil.com', 'javascript:alert(1)', '/\t/evil.com', '']) {
        const res = await api(server).get('/integrations/instagram/auth-url').query({ redirect }).set(alice.auth);
        expect([redirect, res.status, res.body.code]).toEqual([redirect, 400, 'validation_failed']);
        expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'redirect' })]));
      }
      const missing = await api(server).get('/integrations/instagram/auth-url').set(alice.auth);
      expect([missing.status, missing.body.code]).toEqual([400, 'validation_failed']);
    });

    it('lists Pinterest boards and sets the default board', async () => {
      const res = await api(server).get('/integrations/pinterest/boards').set(alice.auth);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['boards']);
      const boards = res.body.boards as Item[];
      expect(boards.length).toBeGreaterThan(1);
      for (const b of boards) {
        expect(Object.keys(b).sort()).toEqual(['id', 'name', 'privacy']);
        expect(b).toEqual({ id: expect.any(String), name: expect.any(String), privacy: expect.any(String) });
      }
      const alias = await api(server).get('/integrations/pinboard/boards').set(alice.auth);
      expect([alias.status, alias.body]).toEqual([200, res.body]);

      const set = await api(server).patch('/integrations/pinboard/default-board').set(alice.auth).send({ board_id: boards[1].id });
      expect(set.status).toBe(200);
      expect(Object.keys(set.body)).toEqual(['integration']);
      expect(set.body.integration).toMatchObject({ platform: 'pinterest', connected: true, default_board_id: boards[1].id });
      expect((await integration(alice, 'pinterest')).default_board_id).toBe(boards[1].id);

      const unknown = await api(server).patch('/integrations/pinterest/default-board').set(alice.auth).send({ board_id: 'no-such-board' });
      expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
      expect((await integration(alice, 'pinterest')).default_board_id).toBe(boards[1].id);
      for (const body of [{}, { board_id: '' }, { board_id: 42 }, { board_id: boards[0].id, extra: true }]) {
        const bad = await api(server).patch('/integrations/pinterest/default-board').set(alice.auth).send(body);
        expect([JSON.stringify(body), bad.status, bad.body.code]).toEqual([JSON.stringify(body), 400, 'validation_failed']);
      }
    });

    it('has no boards on other platforms (404) and none for a workspace that is not connected (409)', async () => {
      for (const name of ['instagram', 'photo_share', 'twitter']) {
        const boards = await api(server).get(`/integrations/${name}/boards`).set(alice.auth);
        expect([name, boards.status, boards.body.code]).toEqual([name, 404, 'not_found']);
        const board = await api(server).patch(`/integrations/${name}/default-board`).set(alice.auth).send({ board_id: 'sandbox-board-1' });
        expect([name, board.status, board.body.code]).toEqual([name, 404, 'not_found']);
      }
      for (const name of ['pinterest', 'pinboard']) {
        const boards = await api(server).get(`/integrations/${name}/boards`).set(bob.auth);
        expect([name, boards.status, boards.body.code]).toEqual([name, 409, 'integration_not_connected']);
        const board = await api(server).patch(`/integrations/${name}/default-board`).set(bob.auth).send({ board_id: 'sandbox-board-1' });
        expect([name, board.status, board.body.code]).toEqual([name, 409, 'integration_not_connected']);
      }
    });

    it("keeps connections per workspace: another user sees its own, disconnected, state", async () => {
      expect((await integration(alice, 'pinterest')).connected).toBe(true);
      for (const name of ['instagram', 'tiktok', 'pinterest', 'pinboard']) {
        expect(await integration(bob, name)).toEqual(disconnected(canonical(name)));
      }
    });

    it('disconnects with 204, also when not connected', async () => {
      const del = await api(server).delete('/integrations/video_share').set(alice.auth);
      expect([del.status, del.text]).toEqual([204, '']);
      expect(await integration(alice, 'youtube')).toEqual(disconnected('youtube'));
      expect((await api(server).delete('/integrations/youtube').set(alice.auth)).status).toBe(204);
      expect((await api(server).delete('/integrations/x').set(alice.auth)).status).toBe(204);
      expect(await integration(alice, 'twitter')).toMatchObject({ connected: false, status: 'disconnected', account: null, connected_at: null });
      expect((await api(server).delete('/integrations/twitter').set(bob.auth)).status).toBe(204);
      expect((await integration(alice, 'instagram')).connected).toBe(true);
      // Connected again after a disconnect.
      expect(await connect(alice, 'video_share')).toBe(`${APP_URL}/settings/integrations?connected=youtube`);
      expect((await integration(alice, 'youtube')).status).toBe('connected');
      // X too: the tests below schedule on it.
      expect(await connect(alice, 'x')).toBe(`${APP_URL}/settings/integrations?connected=twitter`);
    });
  });

  describe('POST /content/{id}/schedule', () => {
    it("schedules approved content on the item's own platform, or on the listed ones, keeping their spelling", async () => {
      const [own, aliased, listed] = await Promise.all([approvedItem(), approvedItem(studio, { platform: 'photo_share' }), approvedItem()]);
      const res = await schedule(alice, own.id, { scheduled_at: '2031-03-04T15:00:00Z' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['scheduled_posts']);
      const [post] = res.body.scheduled_posts as Item[];
      expect(res.body.scheduled_posts).toHaveLength(1);
      expect(Object.keys(post).sort()).toEqual(POST_KEYS);
      expect(post).toMatchObject({
        content_id: own.id, character_id: studio, platform: 'instagram', status: 'pending', scheduled_at: '2031-03-04T15:00:00.000Z',
        published_at: null, remote_post_id: null, remote_url: null, media_urls: [], attempts: 0, next_attempt_at: null, error: null,
      });
      expect(post.id).toMatch(POST_ID);
      expect(post.created_at).toMatch(ISO);

      const byAlias = await scheduleOne(aliased.id, at(40));
      expect(byAlias).toMatchObject({ content_id: aliased.id, platform: 'photo_share', status: 'pending' });

      const several = await schedule(alice, listed.id, { scheduled_at: at(41), platforms: ['x', 'pinboard', 'instagram'] });
      expect(several.status).toBe(201);
      expect((several.body.scheduled_posts as Item[]).map((p) => [p.content_id, p.platform, p.status, p.scheduled_at]).sort()).toEqual([
        [listed.id, 'instagram', 'pending', at(41)], [listed.id, 'pinboard', 'pending', at(41)], [listed.id, 'x', 'pending', at(41)],
      ]);
      // Look-ups go by the platform, whatever the spelling.
      for (const name of ['twitter', 'x', 'microblog']) {
        const found = await listPosts(alice, `character_id=${studio}&platform=${name}`);
        expect(found.scheduled_posts.map((p: Item) => [p.content_id, p.platform])).toEqual([[listed.id, 'x']]);
      }
      const photo = await listPosts(alice, `character_id=${studio}&platform=instagram`);
      expect(photo.scheduled_posts.map((p: Item) => p.platform).sort()).toEqual(['instagram', 'instagram', 'photo_share']);
    });

    it('schedules a video on its own platform, and refuses image-only platforms for it', async () => {
      const video = await api(server).post('/content/video/generate').set(alice.auth).send({ character_id: studio, platform: 'tiktok', scene_description: 'Runway walk', duration_seconds: 5 });
      expect(video.status).toBe(202);
      const item = await waitForItem(alice, video.body.item.id, ['approved'], 40_000);
      expect(item.content_type).toBe('short');
      const [post] = (await schedule(alice, item.id, { scheduled_at: at(50) })).body.scheduled_posts as Item[];
      expect(post).toMatchObject({ content_id: item.id, platform: 'tiktok', status: 'pending' });
      for (const platforms of [['twitter'], ['pinboard']]) {
        const res = await schedule(alice, item.id, { scheduled_at: at(50), platforms });
        expect([platforms, res.status, res.body.code]).toEqual([platforms, 400, 'validation_failed']);
      }
      const both = await schedule(alice, item.id, { scheduled_at: at(51), platforms: ['video_share', 'photo_share'] });
      expect(both.status).toBe(201);
      expect(both.body.scheduled_posts.map((p: Item) => p.platform).sort()).toEqual(['photo_share', 'video_share']);
    }, 60_000);

    it('refuses a platform the workspace has not connected with 409 integration_not_connected, creating nothing; a sandbox platform counts once its sandbox connection is made', async () => {
      const carol = await registerUser(server);
      await grantCredits(server, admin, carol.workspace.id, 100);
      const character = await createCharacter(carol, { name: 'Carol', settings: { autopilot: true } });
      const item = await approvedItem(character, {}, carol);
      expect(await integration(carol, 'instagram')).toEqual(disconnected('instagram'));
      // The item's own platform, or the listed one, as the client spelled it.
      for (const [body, name] of [[{ scheduled_at: at(120) }, 'instagram'], [{ scheduled_at: at(120), platforms: ['photo_share'] }, 'photo_share']] as const) {
        const res = await schedule(carol, item.id, body);
        expect([name, res.status, res.body.code, res.body.details]).toEqual([name, 409, 'integration_not_connected', { platform: name, status: 'disconnected' }]);
      }
      const plan = await api(server).post('/schedule/generate').set(carol.auth).send({ character_id: character, start_date: START });
      expect([plan.status, plan.body.code, plan.body.details]).toEqual([409, 'integration_not_connected', { platform: 'instagram', status: 'disconnected' }]);
      const everything = 'status=pending,publishing,published,failed,cancelled&page_size=100';
      expect((await listPosts(carol, everything)).total).toBe(0);

      // Connected through the sandbox consent: Instagram takes posts; Pinterest, still not connected, refuses the whole request.
      await connect(carol, 'instagram');
      const mixed = await schedule(carol, item.id, { scheduled_at: at(120), platforms: ['instagram', 'pinboard'] });
      expect([mixed.status, mixed.body.code, mixed.body.details]).toEqual([409, 'integration_not_connected', { platform: 'pinboard', status: 'disconnected' }]);
      expect((await listPosts(carol, everything)).total).toBe(0);
      const ok = await schedule(carol, item.id, { scheduled_at: at(120) });
      expect([ok.status, ok.body.scheduled_posts.map((p: Item) => p.platform)]).toEqual([201, ['instagram']]);

      // Rescheduling needs the connection too; cancelling does not.
      expect((await api(server).delete('/integrations/instagram').set(carol.auth)).status).toBe(204);
      const moved = await api(server).patch(`/schedule/${ok.body.scheduled_posts[0].id}`).set(carol.auth).send({ scheduled_at: at(130) });
      expect([moved.status, moved.body.code]).toEqual([409, 'integration_not_connected']);
      const cancelled = await api(server).patch(`/schedule/${ok.body.scheduled_posts[0].id}`).set(carol.auth).send({ status: 'cancelled' });
      expect([cancelled.status, cancelled.body.scheduled_post?.status, cancelled.body.scheduled_post?.scheduled_at]).toEqual([200, 'cancelled', at(120)]);
    });

    it('refuses a scheduled_at more than 60 s in the past, in POST and PATCH, changing nothing', async () => {
      const item = await approvedItem();
      const past = new Date(Date.now() - 10 * 60_000).toISOString();
      const res = await schedule(alice, item.id, { scheduled_at: past });
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
      expect(res.body.details).toEqual([expect.objectContaining({ field: 'scheduled_at' })]);
      const yesterday = await schedule(alice, item.id, { scheduled_at: new Date(Date.now() - 86_400_000).toISOString(), platforms: ['x'] });
      expect([yesterday.status, yesterday.body.code]).toEqual([400, 'validation_failed']);
      expect((await listPosts(alice, `character_id=${studio}&page_size=100`)).scheduled_posts.filter((p: Item) => p.content_id === item.id)).toEqual([]);

      const post = await scheduleOne(item.id, at(140));
      const moved = await api(server).patch(`/schedule/${post.id}`).set(alice.auth).send({ scheduled_at: past });
      expect([moved.status, moved.body.code, moved.body.details?.[0]?.field]).toEqual([400, 'validation_failed', 'scheduled_at']);
      const still = (await listPosts(alice, `character_id=${studio}&page_size=100`)).scheduled_posts.find((p: Item) => p.id === post.id);
      expect(still).toMatchObject({ status: 'pending', scheduled_at: at(140) });
    });

    it('refuses content that is not approved with 409 content_not_approved', async () => {
      const ready = await readyItem();
      const rejected = await readyItem();
      expect((await api(server).post(`/characters/${manual}/content/${rejected.id}/reject`).set(alice.auth).send({ reason: 'off brand' })).status).toBe(200);
      fake.setMode({ kind: 'hang' });
      try {
        const generating = await generate(alice, manual);
        await waitForItem(alice, generating.id, ['generating']);
        for (const [item, status] of [[ready, 'ready'], [rejected, 'rejected'], [generating, 'generating']] as const) {
          const res = await schedule(alice, item.id, { scheduled_at: at(60) });
          expect([status, res.status, res.body.code, res.body.details]).toEqual([status, 409, 'content_not_approved', { status }]);
        }
      } finally {
        fake.setMode({ kind: 'ok' });
      }
      const posts = await listPosts(alice, `character_id=${manual}&status=pending,publishing,published,failed,cancelled`);
      expect(posts.total).toBe(0);
    });

    it('refuses a platform that cannot publish the content type with 400', async () => {
      const single = await approvedItem();
      for (const platforms of [['tiktok'], ['youtube'], ['short_video'], ['video_share'], ['instagram', 'tiktok']]) {
        const res = await schedule(alice, single.id, { scheduled_at: at(70), platforms });
        expect([platforms, res.status, res.body.code]).toEqual([platforms, 400, 'validation_failed']);
      }
      const tiktokItem = await approvedItem(studio, { platform: 'tiktok' });
      const own = await schedule(alice, tiktokItem.id, { scheduled_at: at(70) });
      expect([own.status, own.body.code]).toEqual([400, 'validation_failed']);
      // Nothing was created by the refused requests.
      const posts = await listPosts(alice, `character_id=${studio}&page_size=100`);
      expect(posts.scheduled_posts.filter((p: Item) => p.content_id === single.id || p.content_id === tiktokItem.id)).toEqual([]);
    });

    it('refuses a still image as a TikTok short or an Instagram reel with 400 saying why, as the platform would', async () => {
      const stills = await createCharacter(alice, { name: 'Stills', settings: { autopilot: true } });
      const still = await approvedItem(stills, { platform: 'tiktok', type: 'short' });
      expect([still.content_type, still.media.map((m: Item) => m.kind)]).toEqual(['short', ['image']]);
      const res = await schedule(alice, still.id, { scheduled_at: at(80) });
      const why = 'TikTok short posts take video only; this one holds a still image.';
      expect([res.status, res.body.code, res.body.message, res.body.details]).toEqual([400, 'validation_failed', why, [{ field: 'platforms', message: why }]]);
      const reel = await schedule(alice, still.id, { scheduled_at: at(80), platforms: ['instagram'] });
      expect([reel.status, reel.body.message]).toEqual([400, 'Instagram short posts take video only; this one holds a still image.']);
      // The slot planner leaves it out rather than plan a post the platform would refuse.
      const planned = await api(server).post('/schedule/generate').set(alice.auth).send({ character_id: stills, start_date: at(2000), days: 1 });
      expect([planned.status, planned.body.scheduledPosts]).toEqual([201, []]);
      const posts = await listPosts(alice, `character_id=${stills}&page_size=100`);
      expect(posts.scheduled_posts.filter((p: Item) => p.content_id === still.id)).toEqual([]);
    });

    it('refuses a second pending post of the same content on the same platform with 409 already_scheduled', async () => {
      const item = await approvedItem();
      const first = await scheduleOne(item.id, at(80));
      for (const body of [{ scheduled_at: at(90) }, { scheduled_at: at(90), platforms: ['photo_share'] }, { scheduled_at: at(90), platforms: ['twitter', 'instagram'] }]) {
        const res = await schedule(alice, item.id, body);
        expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), 409, 'already_scheduled']);
      }
      // All or nothing: the Twitter post of the refused request was not kept.
      const mine = (await listPosts(alice, `character_id=${studio}&page_size=100`)).scheduled_posts.filter((p: Item) => p.content_id === item.id);
      expect(mine.map((p: Item) => p.id)).toEqual([first.id]);
      // Once the pending post is cancelled the item can be scheduled again.
      expect((await api(server).patch(`/schedule/${first.id}`).set(alice.auth).send({ status: 'cancelled' })).status).toBe(200);
      expect((await schedule(alice, item.id, { scheduled_at: at(90) })).status).toBe(201);
    });

    it("answers 404 for another workspace's, unknown or malformed content ids", async () => {
      const item = await approvedItem();
      const foreign = await schedule(bob, item.id, { scheduled_at: at(100) });
      expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
      for (const id of [missingId('cnt'), missingId('char'), 'cnt_123', 'nope']) {
        const res = await schedule(alice, id, { scheduled_at: at(100) });
        expect([id, res.status, res.body.code]).toEqual([id, 404, 'not_found']);
      }
    });

    it('validates the body', async () => {
      const item = await approvedItem();
      const bodies: Array<[string, Record<string, unknown>]> = [
        ['no scheduled_at', {}],
        ['no scheduled_at, platforms only', { platforms: ['instagram'] }],
        ['a date, not a timestamp', { scheduled_at: '2031-03-04' }],
        ['no zone', { scheduled_at: '2031-03-04T15:00:00' }],
        ['words', { scheduled_at: 'tomorrow' }],
        ['a number', { scheduled_at: 1_900_000_000 }],
        ['an unknown platform', { scheduled_at: at(110), platforms: ['myspace'] }],
        ['a platform in capitals', { scheduled_at: at(110), platforms: ['Instagram'] }],
        ['empty platforms', { scheduled_at: at(110), platforms: [] }],
        ['platforms not a list', { scheduled_at: at(110), platforms: 'instagram' }],
        ['an unknown field', { scheduled_at: at(110), priority: 'high' }],
      ];
      for (const [what, body] of bodies) {
        const res = await schedule(alice, item.id, body);
        expect([what, res.status, res.body.code]).toEqual([what, 400, 'validation_failed']);
      }
      expect((await listPosts(alice, `character_id=${studio}&page_size=100`)).scheduled_posts.filter((p: Item) => p.content_id === item.id)).toEqual([]);
    });
  });

  describe('POST /schedule/generate', () => {
    const plan = (user: TestUser, body: Record<string, unknown>) => api(server).post('/schedule/generate').set(user.auth).send(body);

    it('plans approved, unscheduled items in good hours of the location timezone, 4 h apart per platform, staggered', async () => {
      const paris = await createCharacter(alice, { name: 'Camille', identity: { location: 'Paris, France' }, settings: { autopilot: true } });
      const [already, b, c, rejected] = await approvedItems(4, paris);
      expect((await api(server).post(`/characters/${paris}/content/${rejected.id}/reject`).set(alice.auth).send({})).status).toBe(200);
      // 09:00 in Paris on the first day (CET, UTC+1): the first good slot, already taken on Instagram.
      const taken = await scheduleOne(already.id, '2031-03-03T08:00:00Z');

      const res = await plan(alice, { character_id: paris, start_date: START, platforms: ['instagram', 'x', 'pinboard'] });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['scheduledPosts', 'slot_source', 'slot_sources', 'timezone']);
      // No measured posts yet: every platform keeps the default hours.
      expect(res.body).toMatchObject({ slot_source: 'defaults', slot_sources: { instagram: 'defaults', twitter: 'defaults', pinterest: 'defaults' } });
      expect(res.body.timezone).toBe('Europe/Paris');
      const posts = res.body.scheduledPosts as Item[];
      expect(posts.map((p) => [p.content_id, p.platform]).sort()).toEqual(
        [[b.id, 'instagram'], [b.id, 'pinboard'], [b.id, 'x'], [c.id, 'instagram'], [c.id, 'pinboard'], [c.id, 'x']].sort(),
      );
      for (const p of posts) {
        expect(p).toMatchObject({ id: expect.stringMatching(POST_ID), character_id: paris, status: 'pending', scheduled_at: expect.stringMatching(ISO) });
        expect(Date.parse(p.scheduled_at)).toBeGreaterThanOrEqual(Date.parse(START));
        const local = localTime(p.scheduled_at, 'Europe/Paris');
        expect([p.platform, local >= '09:00' && local < '23:00']).toEqual([p.platform, true]);
      }
      // Instagram has no stagger: its slots are exactly the good hours, in Paris time.
      for (const p of posts.filter((x) => x.platform === 'instagram')) expect(INSTAGRAM_SLOTS).toContain(localTime(p.scheduled_at, 'Europe/Paris'));

      // At least 4 hours apart on each platform, counting the post that was already there.
      const times = (platform: string) => posts.filter((p) => p.platform === platform).map((p) => Date.parse(p.scheduled_at));
      for (const [platform, existing] of [['instagram', [Date.parse(taken.scheduled_at)]], ['x', []], ['pinboard', []]] as const) {
        const all = [...times(platform), ...existing].sort((x, y) => x - y);
        for (let i = 1; i < all.length; i++) expect([platform, all[i] - all[i - 1] >= 4 * HOUR]).toEqual([platform, true]);
      }
      // One item on several platforms goes out at different times.
      for (const item of [b, c]) {
        const mine = posts.filter((p) => p.content_id === item.id).map((p) => p.scheduled_at);
        expect(new Set(mine).size).toBe(3);
      }

      const listed = await listPosts(alice, `character_id=${paris}&page_size=100`);
      expect(listed.total).toBe(7);
      // Planned items are not planned again; rejected ones never.
      const again = await plan(alice, { character_id: paris, start_date: START, platforms: ['instagram', 'x', 'pinboard'] });
      expect([again.status, again.body]).toEqual([201, { timezone: 'Europe/Paris', slot_source: 'defaults', slot_sources: { instagram: 'defaults', twitter: 'defaults', pinterest: 'defaults' }, scheduledPosts: [] }]);
    });

    it("uses the character's own timezone before its location, and America/New_York without either", async () => {
      const tokyo = await createCharacter(alice, { name: 'Yui', identity: { location: 'Paris, France' }, settings: { autopilot: true } });
      const patched = await api(server).patch(`/characters/${tokyo}`).set(alice.auth).send({ timezone: 'Asia/Tokyo' });
      expect([patched.status, patched.body.character.timezone]).toEqual([200, 'Asia/Tokyo']);
      const item = await approvedItem(tokyo);
      const res = await plan(alice, { character_id: tokyo, start_date: START, days: 2 });
      expect([res.status, res.body.timezone]).toEqual([201, 'Asia/Tokyo']);
      expect(res.body.scheduledPosts.map((p: Item) => [p.content_id, p.platform])).toEqual([[item.id, 'instagram']]);
      expect(INSTAGRAM_SLOTS).toContain(localTime(res.body.scheduledPosts[0].scheduled_at, 'Asia/Tokyo'));

      const plain = await createCharacter(alice, { name: 'Plain', settings: { autopilot: true } });
      const nyItem = await approvedItem(plain);
      const ny = await plan(alice, { character_id: plain, start_date: START, days: 1 });
      expect([ny.status, ny.body.timezone]).toEqual([201, 'America/New_York']);
      expect(ny.body.scheduledPosts.map((p: Item) => p.content_id)).toEqual([nyItem.id]);
      expect(INSTAGRAM_SLOTS).toContain(localTime(ny.body.scheduledPosts[0].scheduled_at, 'America/New_York'));
    });

    it("posts an item planned for a day on that day, in the character's zone; start_date may be a day", async () => {
      const planner = await createCharacter(alice, { name: 'Planner', settings: { autopilot: true } });
      const [thursday, saturday, free] = await approvedItems(3, planner);
      // 10:00 in New York on Thursday 6 and Saturday 8 March 2031 (EST, UTC-5).
      for (const [item, plannedFor] of [[thursday, '2031-03-06T15:00:00Z'], [saturday, '2031-03-08T15:00:00Z']] as const) {
        expect((await api(server).patch(`/content/${item.id}`).set(alice.auth).send({ planned_for: plannedFor })).status).toBe(200);
      }
      const res = await plan(alice, { character_id: planner, start_date: '2031-03-03' });
      expect([res.status, res.body.timezone]).toEqual([201, 'America/New_York']);
      const day = (iso: string) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date(iso));
      const placed: Record<string, string> = Object.fromEntries((res.body.scheduledPosts as Item[]).map((p) => [p.content_id as string, p.scheduled_at as string]));
      expect([day(placed[thursday.id]), day(placed[saturday.id])]).toEqual(['2031-03-06', '2031-03-08']);
      for (const when of Object.values(placed)) expect(INSTAGRAM_SLOTS).toContain(localTime(when, 'America/New_York'));
      // The unplanned item keeps the earliest good slot: 09:00 on the start day, which began at midnight New York time.
      expect(placed[free.id]).toBe('2031-03-03T14:00:00.000Z');
    });

    it('never plans before start_date, and only within the days asked for', async () => {
      const later = await createCharacter(alice, { name: 'Later', settings: { autopilot: true } });
      await approvedItems(3, later);
      // 18:00 in New York: only the 21:00 slot is left that day; days: 1 leaves room for one post.
      const start = '2031-03-04T23:00:00Z';
      const res = await plan(alice, { character_id: later, start_date: start, days: 1 });
      expect(res.status).toBe(201);
      expect(res.body.scheduledPosts).toHaveLength(1);
      expect(res.body.scheduledPosts[0].scheduled_at).toBe('2031-03-05T02:00:00.000Z');
    });

    it("answers 404 for another workspace's or an unknown character", async () => {
      const foreign = await plan(bob, { character_id: studio, start_date: START });
      expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
      const unknown = await plan(alice, { character_id: missingId('char'), start_date: START });
      expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    });

    it('validates the body', async () => {
      const bodies: Array<[string, Record<string, unknown>]> = [
        ['empty', {}],
        ['no start_date', { character_id: studio }],
        ['no character', { start_date: START }],
        ['a malformed character id', { character_id: 'nope', start_date: START }],
        ['a content id as character', { character_id: missingId('cnt'), start_date: START }],
        ['words for a date', { character_id: studio, start_date: 'next monday' }],
        ['a day that does not exist', { character_id: studio, start_date: '2031-02-30' }],
        ['a day without its dashes', { character_id: studio, start_date: '20310303' }],
        ['an unknown platform', { character_id: studio, start_date: START, platforms: ['myspace'] }],
        ['empty platforms', { character_id: studio, start_date: START, platforms: [] }],
        ['days 0', { character_id: studio, start_date: START, days: 0 }],
        ['days 32', { character_id: studio, start_date: START, days: 32 }],
        ['days as text', { character_id: studio, start_date: START, days: 'seven' }],
        ['an unknown field', { character_id: studio, start_date: START, posts_per_day: 2 }],
      ];
      for (const [what, body] of bodies) {
        const res = await plan(alice, body);
        expect([what, res.status, res.body.code]).toEqual([what, 400, 'validation_failed']);
      }
    });
  });

  describe('GET /schedule, GET /schedule/history and PATCH /schedule/{id}', () => {
    let lister: string;
    let posts: Item[];
    let twitterPost: Item;

    beforeAll(async () => {
      lister = await createCharacter(alice, { name: 'Lister', settings: { autopilot: true } });
      const items = await approvedItems(4, lister);
      posts = [];
      for (const [i, hours] of [[0, 72], [1, 24], [2, 48]] as const) posts.push(await scheduleOne(items[i].id, at(hours)));
      posts.sort((x, y) => x.scheduled_at.localeCompare(y.scheduled_at));
      twitterPost = await scheduleOne(items[3].id, at(36), ['x']);
    }, 60_000);

    it('lists pending posts soonest first, with filters and pages', async () => {
      const all = await listPosts(alice, `character_id=${lister}`);
      expect(Object.keys(all).sort()).toEqual(['page', 'page_size', 'scheduled_posts', 'total']);
      expect([all.page, all.page_size, all.total]).toEqual([1, 20, 4]);
      expect(all.scheduled_posts.map((p: Item) => p.scheduled_at)).toEqual([at(24), at(36), at(48), at(72)]);
      for (const p of all.scheduled_posts) expect(Object.keys(p).sort()).toEqual(POST_KEYS);

      const page2 = await listPosts(alice, `character_id=${lister}&page=2&page_size=3`);
      expect([page2.page, page2.page_size, page2.total, page2.scheduled_posts.map((p: Item) => p.scheduled_at)]).toEqual([2, 3, 4, [at(72)]]);
      const beyond = await listPosts(alice, `character_id=${lister}&page=5&page_size=3`);
      expect([beyond.total, beyond.scheduled_posts]).toEqual([4, []]);

      expect((await listPosts(alice, `character_id=${lister}&platform=microblog`)).scheduled_posts.map((p: Item) => p.id)).toEqual([twitterPost.id]);
      expect((await listPosts(alice, `character_id=${lister}&platform=instagram`)).total).toBe(3);
      const window = await listPosts(alice, `character_id=${lister}&from=${at(30)}&to=${at(72)}`);
      expect(window.scheduled_posts.map((p: Item) => p.scheduled_at)).toEqual([at(36), at(48)]);
      expect((await listPosts(alice, `character_id=${lister}&status=published`)).total).toBe(0);
      // Without a character filter: the whole workspace, and only it.
      expect((await listPosts(alice, '')).total).toBeGreaterThan(4);
      expect(await listPosts(bob, '')).toEqual({ scheduled_posts: [], page: 1, page_size: 20, total: 0 });
      expect((await listPosts(bob, `character_id=${lister}`)).total).toBe(0);

      for (const query of ['platform=myspace', 'status=done', 'status=pending,', 'from=yesterday', 'to=2031-03-03', 'page=0', 'page_size=0', 'page_size=abc', 'character_id=nope', 'sort=asc']) {
        const res = await api(server).get(`/schedule?${query}`).set(alice.auth);
        expect([query, res.status, res.body.code]).toEqual([query, 400, 'validation_failed']);
      }
    });

    it('reschedules and cancels a pending post; finished posts refuse with 409', async () => {
      const [first, second] = posts;
      const moved = await api(server).patch(`/schedule/${first.id}`).set(alice.auth).send({ scheduled_at: '2031-03-05T18:30:00+02:00' });
      expect(moved.status).toBe(200);
      expect(Object.keys(moved.body)).toEqual(['scheduled_post']);
      expect(moved.body.scheduled_post).toMatchObject({ id: first.id, status: 'pending', scheduled_at: '2031-03-05T16:30:00.000Z', content_id: first.content_id });

      const cancelled = await api(server).patch(`/schedule/${second.id}`).set(alice.auth).send({ status: 'cancelled' });
      expect([cancelled.status, cancelled.body.scheduled_post.status, cancelled.body.scheduled_post.id]).toEqual([200, 'cancelled', second.id]);
      for (const [body, action] of [[{ scheduled_at: at(200) }, 'reschedule'], [{ status: 'cancelled' }, 'cancel']] as const) {
        const res = await api(server).patch(`/schedule/${second.id}`).set(alice.auth).send(body);
        expect([res.status, res.body.code, res.body.details]).toEqual([409, 'invalid_state_transition', { from: 'cancelled', action }]);
      }
      const pending = await listPosts(alice, `character_id=${lister}`);
      expect(pending.scheduled_posts.map((p: Item) => p.id)).not.toContain(second.id);
      expect((await listPosts(alice, `character_id=${lister}&status=cancelled`)).scheduled_posts.map((p: Item) => p.id)).toEqual([second.id]);

      // Rescheduling and cancelling at once.
      const both = await api(server).patch(`/schedule/${twitterPost.id}`).set(alice.auth).send({ scheduled_at: at(300), status: 'cancelled' });
      expect(both.body.scheduled_post).toMatchObject({ status: 'cancelled', scheduled_at: at(300) });
    });

    it('validates PATCH bodies and answers 404 for posts it cannot see', async () => {
      const target = posts[2];
      for (const body of [{}, { status: 'published' }, { status: 'pending' }, { scheduled_at: 'soon' }, { scheduled_at: at(10), note: 'x' }]) {
        const res = await api(server).patch(`/schedule/${target.id}`).set(alice.auth).send(body);
        expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), 400, 'validation_failed']);
      }
      const foreign = await api(server).patch(`/schedule/${target.id}`).set(bob.auth).send({ status: 'cancelled' });
      expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
      for (const id of [missingId('sch'), missingId('cnt'), 'sch_1', 'nope']) {
        const res = await api(server).patch(`/schedule/${id}`).set(alice.auth).send({ status: 'cancelled' });
        expect([id, res.status, res.body.code]).toEqual([id, 404, 'not_found']);
      }
      expect((await listPosts(alice, `character_id=${lister}`)).scheduled_posts.find((p: Item) => p.id === target.id)?.status).toBe('pending');
    });

    it('shows published, failed and cancelled posts in history, newest first', async () => {
      const [first, second, third] = posts;
      const published = await api(server).post(`/schedule/${third.id}/publish-now`).set(alice.auth);
      expect(published.status).toBe(200);
      const history = await listPosts(alice, `character_id=${lister}`, '/schedule/history');
      expect([history.page, history.page_size, history.total]).toEqual([1, 20, 3]);
      expect(history.scheduled_posts.map((p: Item) => [p.id, p.status])).toEqual([[third.id, 'published'], [twitterPost.id, 'cancelled'], [second.id, 'cancelled']]);
      expect(history.scheduled_posts.map((p: Item) => p.id)).not.toContain(first.id);
      const onlyCancelled = await listPosts(alice, `character_id=${lister}&status=cancelled`, '/schedule/history');
      expect(onlyCancelled.scheduled_posts.map((p: Item) => p.id)).toEqual([twitterPost.id, second.id]);
      const paged = await listPosts(alice, `character_id=${lister}&page=2&page_size=2`, '/schedule/history');
      expect([paged.total, paged.scheduled_posts.map((p: Item) => p.id)]).toEqual([3, [second.id]]);
      expect((await listPosts(bob, '', '/schedule/history')).total).toBe(0);

      const res = await api(server).patch(`/schedule/${third.id}`).set(alice.auth).send({ scheduled_at: at(400) });
      expect([res.status, res.body.code, res.body.details]).toEqual([409, 'invalid_state_transition', { from: 'published', action: 'reschedule' }]);
    });

    it("GET /schedule/{id} answers a post in any status as the lists show it; 404 for another workspace's, unknown or malformed ids", async () => {
      const pending = (await listPosts(alice, `character_id=${lister}`)).scheduled_posts as Item[];
      const finished = (await listPosts(alice, `character_id=${lister}`, '/schedule/history')).scheduled_posts as Item[];
      const listed = [...pending, ...finished];
      expect(listed.map((p) => p.status).sort()).toEqual(['cancelled', 'cancelled', 'pending', 'published']);
      for (const post of listed) {
        const res = await api(server).get(`/schedule/${post.id}`).set(alice.auth);
        expect([res.status, res.body]).toEqual([200, { scheduled_post: post }]);
      }
      const foreign = await api(server).get(`/schedule/${listed[0].id}`).set(bob.auth);
      expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
      for (const id of [missingId('sch'), missingId('cnt'), 'sch_1', 'nope']) {
        const res = await api(server).get(`/schedule/${id}`).set(alice.auth);
        expect([id, res.status, res.body.code]).toEqual([id, 404, 'not_found']);
      }
      expect((await api(server).get(`/schedule/${listed[0].id}`)).status).toBe(401);
    });
  });

  describe('POST /schedule/{id}/publish-now', () => {
    const publishNow = (user: TestUser, id: string) => api(server).post(`/schedule/${id}/publish-now`).set(user.auth);

    it('publishes a pending post at once in sandbox mode; the content is published and its variants lock', async () => {
      const item = await approvedItem();
      const variants = await api(server).post(`/content/${item.id}/variants`).set(alice.auth).send({ count: 2 });
      expect(variants.status).toBe(201);
      const post = await scheduleOne(item.id, at(500));
      const before = Date.now();

      const res = await publishNow(alice, post.id);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['publish_result', 'scheduled_post']);
      const mediaUrls = item.media.map((m: Item) => m.url);
      expect(mediaUrls.length).toBeGreaterThan(0);
      const mediaPaths = mediaUrls.map(pathOf);
      expect(res.body.scheduled_post).toMatchObject({
        id: post.id, content_id: item.id, platform: 'instagram', status: 'published', remote_post_id: expect.stringMatching(/^sandbox_/),
        attempts: 1, error: null, next_attempt_at: null,
      });
      expect(res.body.scheduled_post.media_urls.map(pathOf)).toEqual(mediaPaths);
      expect(Date.parse(res.body.scheduled_post.published_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(res.body.publish_result).toEqual({ remote_post_id: res.body.scheduled_post.remote_post_id, media_urls: res.body.scheduled_post.media_urls });
      expect(res.body.publish_result.media_urls.map(pathOf)).toEqual(mediaPaths);

      const published = await getItem(alice, item.id);
      expect(published).toMatchObject({ status: 'published', variants_locked: true });
      expect(published.published_at).toMatch(ISO);
      // The character remembers when it last posted.
      const character = await api(server).get(`/characters/${item.character_id}`).set(alice.auth);
      expect(character.body.character.last_post_date).toBe(res.body.scheduled_post.published_at);
      const select = await api(server).put(`/content/${item.id}/variants/0/select`).set(alice.auth);
      expect([select.status, select.body.code]).toEqual([409, 'variants_locked']);

      const again = await publishNow(alice, post.id);
      expect([again.status, again.body.code, again.body.details]).toEqual([409, 'invalid_state_transition', { from: 'published', action: 'publish' }]);
      // Published content may still be scheduled elsewhere.
      expect((await schedule(alice, item.id, { scheduled_at: at(501), platforms: ['pinterest'] })).status).toBe(201);
    });

    it('refuses when the platform was disconnected after scheduling, leaving the post pending', async () => {
      const item = await approvedItem();
      const post = await scheduleOne(item.id, at(510), ['x']);
      expect((await api(server).delete('/integrations/twitter').set(alice.auth)).status).toBe(204);
      try {
        const res = await publishNow(alice, post.id);
        expect([res.status, res.body.code]).toEqual([409, 'integration_not_connected']);
        const still = (await listPosts(alice, `character_id=${studio}&platform=twitter&page_size=100`)).scheduled_posts.find((p: Item) => p.id === post.id);
        expect(still).toMatchObject({ status: 'pending', attempts: 0, scheduled_at: at(510) });
        expect((await getItem(alice, item.id)).status).toBe('approved');
      } finally {
        await connect(alice, 'x');
      }
    });

    it('fails a post whose media the platform refuses at publish time, with content_rejected and the reason', async () => {
      const item = await approvedItem();
      const post = await scheduleOne(item.id, at(520));
      // Made a reel after it was scheduled: its one still image is what Instagram would refuse.
      expect((await api(server).patch(`/content/${item.id}`).set(alice.auth).send({ content_type: 'reel' })).status).toBe(200);
      const res = await publishNow(alice, post.id);
      const why = 'Instagram reel posts take video only; this one holds a still image.';
      expect([res.status, res.body.code, res.body.message, res.body.details?.code]).toEqual([502, 'upstream_failed', why, 'content_rejected']);
      const history = await listPosts(alice, `character_id=${studio}&status=failed&page_size=100`, '/schedule/history');
      expect(history.scheduled_posts.find((p: Item) => p.id === post.id)).toMatchObject({ status: 'failed', remote_post_id: null, error: { code: 'content_rejected', message: why } });
      expect((await getItem(alice, item.id)).status).toBe('approved');
    });

    it('refuses a cancelled post, and content that is no longer approved', async () => {
      const [a, b] = await approvedItems(2);
      const cancelled = await scheduleOne(a.id, at(520));
      await api(server).patch(`/schedule/${cancelled.id}`).set(alice.auth).send({ status: 'cancelled' });
      const res = await publishNow(alice, cancelled.id);
      expect([res.status, res.body.code, res.body.details]).toEqual([409, 'invalid_state_transition', { from: 'cancelled', action: 'publish' }]);

      const post = await scheduleOne(b.id, at(520));
      expect((await api(server).post(`/characters/${studio}/content/${b.id}/reject`).set(alice.auth).send({ reason: 'changed my mind' })).status).toBe(200);
      const unapproved = await publishNow(alice, post.id);
      expect([unapproved.status, unapproved.body.code]).toEqual([409, 'content_not_approved']);
    });

    it("answers 404 for another workspace's, unknown or malformed post ids", async () => {
      const item = await approvedItem();
      const post = await scheduleOne(item.id, at(530));
      const foreign = await publishNow(bob, post.id);
      expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
      for (const id of [missingId('sch'), missingId('cnt'), 'sch_1', 'nope']) {
        const res = await publishNow(alice, id);
        expect([id, res.status, res.body.code]).toEqual([id, 404, 'not_found']);
      }
      expect((await listPosts(alice, `character_id=${studio}&page_size=100`)).scheduled_posts.find((p: Item) => p.id === post.id)?.status).toBe('pending');
    });
  });

  describe('the dispatcher', () => {
    it('publishes a post when it is due, reporting it on the socket', async () => {
      const socket = await authedSocket(server.wsUrl, alice.token);
      sockets.push(socket);
      expect(socket.messages[0]).toMatchObject({ type: 'auth.ok', user_id: alice.user.id });
      const item = await approvedItem();
      const post = await scheduleOne(item.id, new Date(Date.now() + 1000).toISOString());
      expect(post.status).toBe('pending');

      const done = await waitFor(async () => {
        const history = await listPosts(alice, `character_id=${studio}&page_size=100`, '/schedule/history');
        return history.scheduled_posts.find((p: Item) => p.id === post.id && p.status === 'published') as Item | undefined;
      }, 20_000, 'the dispatcher to publish the post');
      expect(done).toMatchObject({ remote_post_id: expect.stringMatching(/^sandbox_/), attempts: 1, error: null });
      expect(done.media_urls.map(pathOf)).toEqual(item.media.map((m: Item) => pathOf(m.url)));
      expect(Date.parse(done.published_at)).toBeGreaterThanOrEqual(Date.parse(post.scheduled_at));
      expect(await getItem(alice, item.id)).toMatchObject({ status: 'published', variants_locked: true });

      await socket.waitFor((m) => m.type === 'post.updated' && m.scheduled_post.id === post.id && m.scheduled_post.status === 'published', 10_000);
      const statuses = socket.messages.filter((m) => m.type === 'post.updated' && m.scheduled_post.id === post.id).map((m) => m.scheduled_post.status);
      expect(statuses.filter((s) => s !== 'pending')).toEqual(['publishing', 'published']);
      const last = socket.messages.filter((m) => m.type === 'post.updated' && m.scheduled_post.id === post.id).at(-1)!;
      expect(last.scheduled_post).toEqual(done);
    });

    /** Waits until the post is finished in the history, with `status`. */
    const finished = (id: string, status: string): Promise<Item> =>
      waitFor(async () => {
        const history = await listPosts(alice, `character_id=${studio}&page_size=100`, '/schedule/history');
        const post = history.scheduled_posts.find((p: Item) => p.id === id) as Item | undefined;
        if (post && post.status !== status) throw new Error(`post ${id} ended ${post.status}: ${JSON.stringify(post.error)}`);
        return post;
      }, 20_000, `post ${id} to be ${status}`);

    it('takes a scheduled_at up to 60 s in the past as now, in POST and PATCH, and publishes at once', async () => {
      const [a, b] = await approvedItems(2);
      const sent = Date.now();
      const post = await scheduleOne(a.id, new Date(sent - 20_000).toISOString());
      expect(Date.parse(post.scheduled_at)).toBeGreaterThanOrEqual(sent - 1000);
      expect(post.status).toBe('pending');
      expect(await finished(post.id, 'published')).toMatchObject({ attempts: 1, error: null });

      const later = await scheduleOne(b.id, at(900));
      const movedAt = Date.now();
      const moved = await api(server).patch(`/schedule/${later.id}`).set(alice.auth).send({ scheduled_at: new Date(movedAt - 30_000).toISOString() });
      expect(moved.status).toBe(200);
      expect(Date.parse(moved.body.scheduled_post.scheduled_at)).toBeGreaterThanOrEqual(movedAt - 1000);
      expect(await finished(later.id, 'published')).toMatchObject({ attempts: 1, error: null });
    });

    it('fails a post whose connection was removed before it was due with its own code, not_connected', async () => {
      const item = await approvedItem();
      const post = await scheduleOne(item.id, new Date(Date.now() + 4000).toISOString(), ['x']);
      expect((await api(server).delete('/integrations/x').set(alice.auth)).status).toBe(204);
      try {
        const done = await finished(post.id, 'failed');
        expect(done).toMatchObject({ status: 'failed', attempts: 1, remote_post_id: null, next_attempt_at: null, error: { code: 'not_connected', message: expect.any(String) } });
        expect((await getItem(alice, item.id)).status).toBe('approved');
      } finally {
        await connect(alice, 'x');
      }
    });
  });

  describe('POST /public/publish', () => {
    let publishKey: string;
    let readKey: string;
    const publicPublish = (auth: { Authorization: string }, body: Record<string, unknown>) => api(server).post('/public/publish').set(auth).send(body);
    const createKey = async (user: TestUser, scopes: string[]): Promise<string> => {
      const res = await api(server).post('/api-keys').set(user.auth).send({ name: scopes.join(' '), scopes });
      expect(res.status).toBe(201);
      return res.body.key as string;
    };

    beforeAll(async () => {
      publishKey = await createKey(alice, ['content:publish']);
      readKey = await createKey(alice, ['content:read', 'characters:read', 'credits:read']);
    });

    it('publishes approved content with a content:publish key, answering like publish-now', async () => {
      const item = await approvedItem();
      const res = await publicPublish(bearer(publishKey), { content_id: item.id, platform: 'instagram' });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['publish_result', 'scheduled_post']);
      expect(Object.keys(res.body.scheduled_post).sort()).toEqual(POST_KEYS);
      expect(res.body.scheduled_post).toMatchObject({
        id: expect.stringMatching(POST_ID), content_id: item.id, character_id: studio, platform: 'instagram', status: 'published',
        remote_post_id: expect.stringMatching(/^sandbox_/), attempts: 1, error: null,
      });
      expect(res.body.publish_result).toEqual({ remote_post_id: res.body.scheduled_post.remote_post_id, media_urls: res.body.scheduled_post.media_urls });
      expect(res.body.publish_result.media_urls.map(pathOf)).toEqual(item.media.map((m: Item) => pathOf(m.url)));
      expect(await getItem(alice, item.id)).toMatchObject({ status: 'published', variants_locked: true });
      const history = await listPosts(alice, `character_id=${studio}&page_size=100`, '/schedule/history');
      expect(history.scheduled_posts.find((p: Item) => p.id === res.body.scheduled_post.id)).toMatchObject({ status: 'published' });
    });

    it('publishes the pending post of the item instead of making another', async () => {
      const item = await approvedItem();
      const pending = await scheduleOne(item.id, at(600));
      const res = await publicPublish(bearer(publishKey), { content_id: item.id, platform: 'photo_share' });
      expect(res.status).toBe(200);
      expect(res.body.scheduled_post).toMatchObject({ id: pending.id, platform: 'instagram', status: 'published' });
      expect(Date.parse(res.body.scheduled_post.scheduled_at)).toBeLessThan(Date.parse(at(600)));
      const all = await listPosts(alice, `character_id=${studio}&status=pending,publishing,published,failed,cancelled&page_size=100`);
      expect(all.scheduled_posts.filter((p: Item) => p.content_id === item.id).map((p: Item) => p.id)).toEqual([pending.id]);
    });

    it('needs an API key with the content:publish scope', async () => {
      const item = await approvedItem();
      const noScope = await publicPublish(bearer(readKey), { content_id: item.id, platform: 'instagram' });
      expect([noScope.status, noScope.body.code]).toEqual([403, 'insufficient_scope']);
      const session = await publicPublish(alice.auth, { content_id: item.id, platform: 'instagram' });
      expect([session.status, session.body.code]).toEqual([401, 'api_key_required']);
      const none = await api(server).post('/public/publish').send({ content_id: item.id, platform: 'instagram' });
      expect([none.status, none.body.code]).toEqual([401, 'unauthorized']);
      const bogus = await publicPublish(bearer('not-a-key'), { content_id: item.id, platform: 'instagram' });
      expect(bogus.status).toBe(401);
      expect((await getItem(alice, item.id)).status).toBe('approved');
      expect((await listPosts(alice, `character_id=${studio}&status=pending,published&page_size=100`)).scheduled_posts.filter((p: Item) => p.content_id === item.id)).toEqual([]);
    });

    it("answers 404 for another workspace's content and 409 for content that is not approved", async () => {
      const carol = await registerUser(server);
      await setPlan(server, admin, carol.workspace.id, 'agency');
      const carolKey = await createKey(carol, ['content:publish']);
      const item = await approvedItem();
      const foreign = await publicPublish(bearer(carolKey), { content_id: item.id, platform: 'instagram' });
      expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
      const missing = await publicPublish(bearer(publishKey), { content_id: missingId('cnt'), platform: 'instagram' });
      expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);

      const ready = await readyItem();
      const notApproved = await publicPublish(bearer(publishKey), { content_id: ready.id, platform: 'instagram' });
      expect([notApproved.status, notApproved.body.code, notApproved.body.details]).toEqual([409, 'content_not_approved', { status: 'ready' }]);
      const mismatch = await publicPublish(bearer(publishKey), { content_id: item.id, platform: 'tiktok' });
      expect([mismatch.status, mismatch.body.code]).toEqual([400, 'validation_failed']);
      for (const body of [{}, { content_id: item.id }, { content_id: 'nope', platform: 'instagram' }, { content_id: item.id, platform: 'myspace' }, { content_id: item.id, platform: 'instagram', when: 'now' }]) {
        const res = await publicPublish(bearer(publishKey), body);
        expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), 400, 'validation_failed']);
      }
    });

    it('refuses a platform that is not connected with 409, leaving the schedule as it was', async () => {
      const item = await approvedItem();
      const pending = await scheduleOne(item.id, at(700), ['x']);
      expect((await api(server).delete('/integrations/twitter').set(alice.auth)).status).toBe(204);
      expect((await integration(alice, 'twitter')).connected).toBe(false);
      const res = await publicPublish(bearer(publishKey), { content_id: item.id, platform: 'twitter' });
      expect([res.status, res.body.code]).toEqual([409, 'integration_not_connected']);
      const fresh = await approvedItem();
      const refused = await publicPublish(bearer(publishKey), { content_id: fresh.id, platform: 'x' });
      expect([refused.status, refused.body.code]).toEqual([409, 'integration_not_connected']);

      // The pending post keeps its time (a dispatcher would otherwise fail it at once), and no post was added.
      const posts = await listPosts(alice, `character_id=${studio}&status=pending,publishing,published,failed,cancelled&page_size=100`);
      const mine = posts.scheduled_posts.filter((p: Item) => p.content_id === item.id || p.content_id === fresh.id);
      expect(mine.map((p: Item) => [p.id, p.status, p.scheduled_at])).toEqual([[pending.id, 'pending', at(700)]]);
    });
  });

  describe('GET /content/calendar', () => {
    it('shows scheduled posts on their day, without cancelled ones', async () => {
      const cal = await createCharacter(alice, { name: 'Cal', settings: { autopilot: true } });
      const patched = await api(server).patch(`/characters/${cal}`).set(alice.auth).send({ timezone: 'Asia/Tokyo' });
      expect(patched.status).toBe(200);
      const [a, b] = await approvedItems(2, cal);
      // 2031-03-10 23:30 UTC is 2031-03-11 08:30 in Tokyo.
      const late = await scheduleOne(a.id, '2031-03-10T23:30:00Z');
      const cancelled = await scheduleOne(b.id, '2031-03-12T03:00:00Z');
      await api(server).patch(`/schedule/${cancelled.id}`).set(alice.auth).send({ status: 'cancelled' });

      const res = await api(server).get(`/content/calendar?character_id=${cal}&from=2031-03-09&to=2031-03-15`).set(alice.auth);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ from: '2031-03-09', to: '2031-03-15', timezone: 'Asia/Tokyo' });
      expect(res.body.days.map((d: Item) => d.date)).toEqual(['2031-03-09', '2031-03-10', '2031-03-11', '2031-03-12', '2031-03-13', '2031-03-14', '2031-03-15']);
      const byDay = Object.fromEntries(res.body.days.map((d: Item) => [d.date, d.scheduled_posts.map((p: Item) => p.id)]));
      expect(byDay['2031-03-11']).toEqual([late.id]);
      expect(Object.values(byDay).flat()).toEqual([late.id]);
      const shown = res.body.days.find((d: Item) => d.date === '2031-03-11').scheduled_posts[0];
      expect(shown).toMatchObject({ id: late.id, content_id: a.id, platform: 'instagram', status: 'pending', scheduled_at: '2031-03-10T23:30:00.000Z' });

      // The workspace calendar shows them too, and another workspace's calendar does not.
      const workspace = await api(server).get('/content/calendar?from=2031-03-09&to=2031-03-15').set(alice.auth);
      expect(workspace.body.days.flatMap((d: Item) => d.scheduled_posts.map((p: Item) => p.id))).toContain(late.id);
      const theirs = await api(server).get('/content/calendar?from=2031-03-09&to=2031-03-15').set(bob.auth);
      expect(theirs.body.days.flatMap((d: Item) => d.scheduled_posts)).toEqual([]);
    });

    it("shows a published item, and its post, on the day it was published in the character's zone, planned or not", async () => {
      // UTC+14: its local date differs from UTC's for most of the day.
      const zone = 'Pacific/Kiritimati';
      const cal = await createCharacter(alice, { name: 'Kiri', settings: { autopilot: true } });
      expect((await api(server).patch(`/characters/${cal}`).set(alice.auth).send({ timezone: zone })).status).toBe(200);
      const [unplanned, planned] = await approvedItems(2, cal);
      const plannedFor = '2031-03-12T00:00:00.000Z';
      expect((await api(server).patch(`/content/${planned.id}`).set(alice.auth).send({ planned_for: plannedFor })).status).toBe(200);
      const posts: Item[] = [];
      for (const item of [unplanned, planned]) {
        const post = await scheduleOne(item.id, at(1000));
        const res = await api(server).post(`/schedule/${post.id}/publish-now`).set(alice.auth);
        expect(res.status).toBe(200);
        posts.push(res.body.scheduled_post as Item);
      }
      const publishedAt = (await getItem(alice, unplanned.id)).published_at as string;
      expect(publishedAt).toMatch(ISO);
      const day = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(publishedAt));

      const res = await api(server).get('/content/calendar').query({ character_id: cal, from: day, to: day }).set(alice.auth);
      expect([res.status, res.body.timezone, res.body.days.map((d: Item) => d.date)]).toEqual([200, zone, [day]]);
      expect(res.body.days[0].items.map((i: Item) => i.id).sort()).toEqual([unplanned.id, planned.id].sort());
      expect(res.body.days[0].items.every((i: Item) => i.status === 'published')).toBe(true);
      expect(res.body.days[0].scheduled_posts.map((p: Item) => p.id).sort()).toEqual(posts.map((p) => p.id).sort());
      // Not on the day it was planned for, nor on the day its post had been scheduled for.
      for (const [from, to] of [['2031-03-09', '2031-03-15'], [at(1000).slice(0, 10), at(1000).slice(0, 10)]]) {
        const other = await api(server).get('/content/calendar').query({ character_id: cal, from, to }).set(alice.auth);
        expect([from, other.body.days.flatMap((d: Item) => [...d.items, ...d.scheduled_posts])]).toEqual([from, []]);
      }
    });
  });
});
