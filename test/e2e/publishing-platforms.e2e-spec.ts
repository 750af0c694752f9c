import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { api, grantCredits, loginAdmin, registerUser, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { authedSocket, type TestSocket } from '../helpers/socket.js';
import { mp4Bytes } from '../fakes/video-file-server.js';
import { closePlatformFakes, platformEnv, startPlatformFakes, type FakePlatform, type PlatformFakes } from '../fakes/platforms/index.js';

type Item = Record<string, any>;
type Post = Record<string, any>;
type PlatformName = keyof PlatformFakes;

const PLATFORMS: PlatformName[] = ['instagram', 'twitter', 'pinterest', 'tiktok', 'youtube'];
const VIDEO_PLATFORMS = new Set<PlatformName>(['tiktok', 'youtube']);
/** Platforms that fetch the media from a URL we give them (the others take an upload). */
const FETCH_BY_URL = new Set<PlatformName>(['instagram', 'pinterest', 'tiktok']);
const APP_URL = 'http://app.e2e.test';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A scope each adapter must ask for (and the fake grants back). */
const KEY_SCOPE: Record<PlatformName, string> = {
  instagram: 'instagram_content_publish',
  twitter: 'tweet.write',
  pinterest: 'pins:write',
  tiktok: 'video.publish',
  youtube: 'https://www.googleapis.com/auth/youtube.upload',
};
/** Which platforms get a PKCE challenge (contract §8: "PKCE where the platform supports it"). */
const PKCE = new Set<PlatformName>(['twitter', 'tiktok', 'youtube']);
/** Where the post can be seen, from the remote id the platform gave. */
const REMOTE_URL: Record<PlatformName, (id: string) => RegExp | string> = {
  instagram: () => /^https:\/\/www\.instagram\.com\/p\/[\w-]+\/$/,
  twitter: (id) => `https://x.com/luna_grows/status/${id}`,
  pinterest: (id) => `https://www.pinterest.com/pin/${id}/`,
  tiktok: (id) => `https://www.tiktok.com/@luna.gardens/video/${id}`,
  youtube: (id) => `https://www.youtube.com/watch?v=${id}`,
};
/** The route of each fake that makes a post public (the irreversible call). */
const PUBLISH_ROUTE: Record<PlatformName, { method: string; path: (fake: FakePlatform) => string }> = {
  instagram: { method: 'POST', path: (f) => `/v21.0/${f.options.accountId}/media_publish` },
  twitter: { method: 'POST', path: () => '/2/tweets' },
  pinterest: { method: 'POST', path: () => '/v5/pins' },
  tiktok: { method: 'POST', path: () => '/v2/post/publish/video/init/' },
  youtube: { method: 'PUT', path: () => '/upload/youtube/v3/videos' },
};
/** The token endpoint of each fake. */
const TOKEN_PATH: Record<PlatformName, string> = {
  instagram: '/v21.0/oauth/access_token',
  twitter: '/2/oauth2/token',
  pinterest: '/v5/oauth/token',
  tiktok: '/v2/oauth/token/',
  youtube: '/token',
};

interface MediaModels {
  url: string;
  /** What video models answer: an MP4 (as Replicate's video models do) or an animated GIF. */
  videoFormat: 'mp4' | 'gif';
  close(): Promise<void>;
}

const readJson = (req: IncomingMessage): Promise<any> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString() || '{}')));
  });

const dataUri = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;

/**
 * Replicate's predictions API, answered at once with data-URI outputs: PNGs for image models, an
 * MP4 for video models. test/fakes/replicate-server.ts makes videos as animated GIFs, which YouTube
 * does not take; real video models (and the offline generator) answer MP4, as here.
 */
async function startMediaModels(): Promise<MediaModels> {
  let n = 0;
  const models: MediaModels = { url: '', videoFormat: 'mp4', close: async () => undefined };
  const server = createServer((req, res) => void (async () => {
    const body = await readJson(req);
    const input = (body.input ?? {}) as Record<string, unknown>;
    n += 1;
    let output: string | string[];
    if (input.duration !== undefined) {
      output = models.videoFormat === 'mp4'
        ? dataUri('video/mp4', mp4Bytes(8192))
        : dataUri('image/gif', await sharp({ create: { width: 36, height: 64, channels: 3, background: '#7a5' } }).gif().toBuffer());
    } else {
      const png = await sharp({ create: { width: 64, height: 80, channels: 3, background: { r: 40 + n, g: 120, b: 90 } } }).png().toBuffer();
      output = Array.from({ length: Number(input.num_outputs ?? 1) }, () => dataUri('image/png', png));
    }
    res.writeHead(201, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ id: `pred_${n}`, status: 'succeeded', output, error: null }));
  })());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  models.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  models.close = () => new Promise((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });
  return models;
}

/** The text the service posts for an item: caption, call to action, hashtags (publish-request.ts). */
function postText(item: Item): string {
  const tags = (item.hashtags as string[]).map((t) => (t.startsWith('#') ? t : `#${t}`)).join(' ');
  return [item.caption, item.cta, tags].map((s) => (s as string | null)?.trim()).filter(Boolean).join('\n\n');
}

/**
 * Publishing in live mode: every platform adapter against its fake (test/fakes/platforms), from
 * the OAuth connection through the dispatcher's publish, with token refresh, retries, unknown
 * outcomes, publish-now and disconnect. Contract §8.
 */
describe('publishing to the platforms in live mode', () => {
  let fakes: PlatformFakes;
  let models: MediaModels;
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let user: TestUser;
  let character: string;
  let socket: TestSocket;
  let seq = 0;

  const publishCalls = (p: PlatformName) => fakes[p].requestsTo(PUBLISH_ROUTE[p].path(fakes[p]), PUBLISH_ROUTE[p].method);
  const integration = async (p: PlatformName): Promise<Record<string, any>> => {
    const res = await api(server).get(`/integrations/${p}`).set(user.auth);
    expect(res.status).toBe(200);
    return res.body.integration;
  };
  const getItem = async (id: string): Promise<Item> => (await api(server).get(`/content/${id}`).set(user.auth)).body.item as Item;

  /** The real OAuth round trip: our auth URL → the fake's consent → our callback → back to the app. */
  const connect = async (p: PlatformName): Promise<void> => {
    const authUrl = await api(server).get(`/integrations/${p}/auth-url`).query({ redirect: '/x' }).set(user.auth);
    expect(authUrl.status).toBe(200);
    const url = new URL(authUrl.body.url as string);
    expect(url.origin).toBe(fakes[p].url);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.has('code_challenge')).toBe(PKCE.has(p));
    const consent = await fetch(url, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const callback = new URL(consent.headers.get('location')!);
    expect(callback.pathname).toBe(`/api/v1/integrations/${p}/callback`);
    expect(callback.searchParams.get('code')).toBeTruthy();
    const back = await fetch(`http://127.0.0.1:${server.port}${callback.pathname}${callback.search}`, { redirect: 'manual' });
    expect(back.status).toBe(302);
    expect(back.headers.get('location')).toBe(`${APP_URL}/x?connected=${p}`);
  };

  /** A fresh item the platform takes (one image, or a video), approved at once by autopilot. */
  const approvedItem = async (p: PlatformName): Promise<Item> => {
    seq += 1;
    const topic = `${p} story number ${seq} of ${Date.now().toString(36)}`;
    const res = VIDEO_PLATFORMS.has(p)
      ? await api(server).post('/content/video/generate').set(user.auth).send({ character_id: character, platform: p, scene_description: topic, duration_seconds: 5 })
      : await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: p, prompt: topic, type: 'single' });
    expect([201, 202]).toContain(res.status);
    const id = res.body.item.id as string;
    return waitFor(async () => {
      const item = await getItem(id);
      if (item.status === 'failed') throw new Error(`item ${id} failed: ${JSON.stringify(item.job)}`);
      return item.status === 'approved' ? item : undefined;
    }, 30_000, `item ${id} to be approved`);
  };

  /** POST /content/{id}/schedule, due in `inMs`. */
  const schedule = async (item: Item, inMs = 1000): Promise<Post> => {
    const res = await api(server).post(`/content/${item.id}/schedule`).set(user.auth).send({ scheduled_at: new Date(Date.now() + inMs).toISOString() });
    expect(res.status).toBe(201);
    expect(res.body.scheduled_posts).toHaveLength(1);
    expect(res.body.scheduled_posts[0]).toMatchObject({ content_id: item.id, status: 'pending', attempts: 0, error: null });
    return res.body.scheduled_posts[0] as Post;
  };

  /** Waits until GET /schedule/history shows the post finished with `status`. */
  const finished = (id: string, status: 'published' | 'failed', timeoutMs = 20_000): Promise<Post> =>
    waitFor(async () => {
      const res = await api(server).get('/schedule/history').query({ character_id: character, page_size: 100 }).set(user.auth);
      const post = (res.body.scheduled_posts as Post[]).find((p) => p.id === id);
      if (post && post.status !== status) throw new Error(`post ${id} ended ${post.status}, not ${status}: ${JSON.stringify(post.error)}`);
      return post;
    }, timeoutMs, `post ${id} to be ${status}`);

  /** Checks a published post against what the fake holds: one post, our text, its id. */
  const expectPublished = async (p: PlatformName, post: Post, item: Item, attempts = 1): Promise<void> => {
    const fake = fakes[p];
    expect(fake.posts).toHaveLength(1);
    const made = fake.posts[0];
    expect(post).toMatchObject({ status: 'published', platform: p, remote_post_id: made.id, attempts, error: null, next_attempt_at: null });
    expect(post.published_at).toMatch(ISO);
    expect(post.remote_url).toMatch(REMOTE_URL[p](made.id));
    expect(made.accountId).toBe(fake.options.accountId);
    expect(made.text).toBe(postText(item));
    expect((await getItem(item.id)).status).toBe('published');
  };

  beforeAll(async () => {
    [fakes, models] = await Promise.all([startPlatformFakes(), startMediaModels()]);
    backing = await createBacking();
    const env = {
      ...platformEnv(fakes),
      MEDIA_PROVIDER: 'replicate',
      REPLICATE_API_URL: models.url,
      REPLICATE_API_TOKEN: 'r8_publishing_platforms',
      APP_URL,
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      RATE_LIMIT_MULTIPLIER: '50',
      PUBLISH_DISPATCH_INTERVAL_MS: '100',
      // Long enough for every fake to finish processing; short enough to outlast it on purpose (TikTok below).
      PUBLISH_POLL_TIMEOUT_MS: '3000',
    };
    server = await startServer(backing, env);
    // The worker hands platforms signed media URLs of the API: it must know how they reach it.
    if (E2E_MODE === 'services') worker = await startWorker(backing, { ...env, PUBLIC_URL: `http://127.0.0.1:${server.port}` });
    user = await registerUser(server);
    await grantCredits(server, await loginAdmin(server), user.workspace.id, 1000);
    const res = await api(server).post('/characters').set(user.auth).send({ name: 'Luna', niche: 'gardening', settings: { autopilot: true } });
    expect(res.status).toBe(201);
    character = res.body.character.id;
    socket = await authedSocket(server.wsUrl, user.token);
  }, 90_000);
  afterAll(async () => {
    socket?.close();
    await Promise.all([server?.stop(), worker?.stop()]);
    await closePlatformFakes(fakes);
    await models?.close();
    await backing?.cleanup();
  });

  describe('connecting and publishing on each platform', () => {
    it.each(PLATFORMS)('%s: connects through OAuth, and a post scheduled a second ahead is published by the dispatcher', async (p) => {
      const fake = fakes[p];
      const before = await integration(p);
      expect(before).toMatchObject({ platform: p, connected: false, status: 'disconnected', mode: 'live', account: null });

      await connect(p);
      const connected = await integration(p);
      expect(connected).toMatchObject({
        platform: p, connected: true, status: 'connected', mode: 'live',
        account: { id: fake.options.accountId, name: fake.options.accountName },
      });
      expect(connected.scopes).toContain(KEY_SCOPE[p]);
      expect(connected.connected_at).toMatch(ISO);
      expect(Date.parse(connected.expires_at as string)).toBeGreaterThan(Date.now());

      if (p === 'pinterest') {
        const boards = await api(server).get('/integrations/pinterest/boards').set(user.auth);
        expect(boards.status).toBe(200);
        expect(boards.body.boards.map((b: Item) => ({ ...b, privacy: String(b.privacy).toUpperCase() }))).toEqual([
          { id: '1001', name: 'Balcony garden', privacy: 'PUBLIC' },
          { id: '1002', name: 'Recipes', privacy: 'SECRET' },
        ]);
        const chosen = await api(server).patch('/integrations/pinterest/default-board').set(user.auth).send({ board_id: '1002' });
        expect(chosen.status).toBe(200);
        expect(chosen.body.integration).toMatchObject({ platform: 'pinterest', connected: true, default_board_id: '1002' });
      }

      const item = await approvedItem(p);
      fake.reset();
      const post = await schedule(item);
      const done = await finished(post.id, 'published');
      await expectPublished(p, done, item);
      expect(publishCalls(p)).toHaveLength(1);
      if (FETCH_BY_URL.has(p)) {
        // Like the real platform, the fake fetched the media by the signed URL it was given.
        const fetched = await waitFor(async () => (fake.mediaFetches.length > 0 ? fake.mediaFetches : undefined), 10_000, `${p} to fetch the media`);
        for (const f of fetched) {
          expect(f).toMatchObject({ status: 200, nosniff: true });
          expect(new URL(f.url).searchParams.get('signature')).toMatch(/^[\w-]{43}$/);
        }
      }
      if (p === 'pinterest') expect(fake.posts[0].boardId).toBe('1002');
      if (p === 'youtube') {
        // The title is the caption's first line, cut at a word to YouTube's 100 characters.
        const title = fake.posts[0].title!;
        expect(Array.from(title).length).toBeLessThanOrEqual(100);
        expect((item.caption as string).split('\n')[0].startsWith(title.replace(/…$/, ''))).toBe(true);
      }
    }, 45_000);
  });

  describe('tokens', () => {
    it('an access token the platform refuses is refreshed with the refresh token, then the post goes out once', async () => {
      const fake = fakes.twitter;
      const item = await approvedItem('twitter');
      fake.reset();
      fake.expireTokens();
      const post = await schedule(item);
      const done = await finished(post.id, 'published');
      await expectPublished('twitter', done, item);

      const grants = fake.requests
        .map((r, index) => ({ index, r }))
        .filter(({ r }) => r.path === TOKEN_PATH.twitter && new URLSearchParams(r.body.toString()).get('grant_type') === 'refresh_token');
      expect(grants).toHaveLength(1);
      const publishIndex = fake.requests.findIndex((r) => r.method === 'POST' && r.path === '/2/tweets');
      expect(grants[0].index).toBeLessThan(publishIndex);
      expect(publishCalls('twitter')).toHaveLength(1);
      expect(await integration('twitter')).toMatchObject({ connected: true, status: 'connected' });
    });

    it('a token about to expire is refreshed before publishing, once for several posts due together', async () => {
      const fake = fakes.twitter;
      // A ten-second token is refreshed from half its life on: wait until it is there (still valid at the fake).
      fake.options.accessTtlSeconds = 10;
      try {
        await connect('twitter');
        const expiresAt = Date.parse((await integration('twitter')).expires_at as string);
        const items = [await approvedItem('twitter'), await approvedItem('twitter'), await approvedItem('twitter')];
        await waitFor(async () => Date.now() > expiresAt - 4_500, 15_000, 'the token to reach its refresh margin');
        fake.reset();
        const posts = await Promise.all(items.map((item) => schedule(item, 300)));
        for (const post of posts) expect((await finished(post.id, 'published')).status).toBe('published');

        const grantIndexes = fake.requests
          .map((r, index) => ({ index, r }))
          .filter(({ r }) => r.path === TOKEN_PATH.twitter && new URLSearchParams(r.body.toString()).get('grant_type') === 'refresh_token')
          .map(({ index }) => index);
        expect(grantIndexes).toHaveLength(1);
        const tweets = fake.requests.map((r, index) => ({ index, r })).filter(({ r }) => r.method === 'POST' && r.path === '/2/tweets');
        expect(tweets).toHaveLength(3);
        expect(tweets.every(({ index }) => index > grantIndexes[0])).toBe(true);
        // Each post uploaded its photo once: none was refused with the old token and sent again.
        expect(fake.requestsTo('/2/media/upload', 'POST')).toHaveLength(3);
        expect(fake.posts).toHaveLength(3);
        expect(Date.parse((await integration('twitter')).expires_at as string)).toBeGreaterThan(Date.now());
      } finally {
        fake.options.accessTtlSeconds = 7200;
        await connect('twitter');
      }
    }, 45_000);

    it('a refused refresh fails the post with token_expired, marks the connection needs_reauth and tells the socket', async () => {
      const fake = fakes.pinterest;
      const item = await approvedItem('pinterest');
      fake.reset();
      fake.expireTokens();
      fake.refuseRefresh = true;
      const post = await schedule(item);
      const done = await finished(post.id, 'failed');
      expect(done).toMatchObject({ status: 'failed', remote_post_id: null, attempts: 1, next_attempt_at: null, error: { code: 'token_expired' } });
      expect(fake.posts).toHaveLength(0);
      expect(fake.requestsTo(TOKEN_PATH.pinterest, 'POST').map((r) => new URLSearchParams(r.body.toString()).get('grant_type'))).toEqual(['refresh_token']);
      expect(await integration('pinterest')).toMatchObject({ connected: false, status: 'needs_reauth' });
      expect((await getItem(item.id)).status).toBe('approved');
      const event = await socket.waitFor((m) => m.type === 'post.updated' && m.scheduled_post.id === post.id && m.scheduled_post.status === 'failed', 5_000);
      expect(event.scheduled_post).toMatchObject({ status: 'failed', error: { code: 'token_expired' } });

      // Connecting again makes the connection usable.
      fake.reset();
      await connect('pinterest');
      expect(await integration('pinterest')).toMatchObject({ connected: true, status: 'connected' });
    });
  });

  describe('failures', () => {
    it('a 429 on the publish call leaves the post pending with a retry after Retry-After; the next attempt publishes it', async () => {
      const fake = fakes.instagram;
      const item = await approvedItem('instagram');
      fake.reset();
      fake.setMode({ kind: 'rate_limit', times: 1, retryAfterSeconds: 1 });
      const post = await schedule(item);
      const retry = await socket.waitFor((m) => m.type === 'post.updated' && m.scheduled_post.id === post.id && m.scheduled_post.status === 'pending' && m.scheduled_post.attempts === 1, 15_000);
      expect(retry.scheduled_post).toMatchObject({ attempts: 1, error: { code: 'rate_limited' }, remote_post_id: null });
      expect(retry.scheduled_post.next_attempt_at).toMatch(ISO);
      const delay = Date.parse(retry.scheduled_post.next_attempt_at as string) - Date.parse(retry.scheduled_post.updated_at as string);
      expect(delay).toBeGreaterThanOrEqual(900);
      expect(delay).toBeLessThan(3_000);

      const done = await finished(post.id, 'published');
      await expectPublished('instagram', done, item, 2);
      expect(publishCalls('instagram')).toHaveLength(2);
    });

    it('a lost reply on X is reconciled from the timeline: published once, never sent again', async () => {
      const fake = fakes.twitter;
      const item = await approvedItem('twitter');
      fake.reset();
      fake.setMode({ kind: 'lose_reply', times: 1 });
      const post = await schedule(item);
      const done = await finished(post.id, 'published');
      await expectPublished('twitter', done, item);
      expect(publishCalls('twitter')).toHaveLength(1);
      expect(fake.requests.some((r) => r.method === 'GET' && r.path === `/2/users/${fake.options.accountId}/tweets`)).toBe(true);
    });

    it('a lost reply on TikTok (no way to look the post up) fails as unconfirmed, never sent twice', async () => {
      const fake = fakes.tiktok;
      const item = await approvedItem('tiktok');
      fake.reset();
      fake.setMode({ kind: 'lose_reply', times: 1 });
      const post = await schedule(item);
      const done = await finished(post.id, 'failed');
      expect(done).toMatchObject({ status: 'failed', remote_post_id: null, attempts: 1, next_attempt_at: null, error: { code: 'unconfirmed' } });
      expect(fake.posts).toHaveLength(1);
      expect(publishCalls('tiktok')).toHaveLength(1);
      expect((await getItem(item.id)).status).toBe('approved');
    });

    it('a TikTok post still processing when we stop waiting is settled through its publish id: published once', async () => {
      const fake = fakes.tiktok;
      const item = await approvedItem('tiktok');
      fake.reset();
      fake.pollsToComplete = Number.MAX_SAFE_INTEGER;
      try {
        const post = await schedule(item);
        const polls = () => fake.requestsTo('/v2/post/publish/status/fetch/', 'POST').length;
        await waitFor(async () => polls() > 0, 20_000, 'TikTok to be polled');
        // The attempt polls for PUBLISH_POLL_TIMEOUT_MS (3 s), then its reconciliation polls 3 s more by the publish id.
        // TikTok finishes 4 s after the first poll: only the reconciliation can see it.
        const firstPollAt = Date.now();
        await waitFor(async () => Date.now() - firstPollAt >= 4_000, 10_000, 'the attempt to give up waiting');
        fake.pollsToComplete = 1;
        const done = await finished(post.id, 'published', 30_000);
        expect(done).toMatchObject({ status: 'published', attempts: 1, error: null });
        expect(done.remote_post_id).toBe(fake.posts[0].id);
        expect(fake.posts).toHaveLength(1);
        expect(publishCalls('tiktok')).toHaveLength(1);
      } finally {
        fake.pollsToComplete = 2;
      }
    });

    it('a video stored as an animated GIF is refused by YouTube before any upload: content_rejected, no retry', async () => {
      const fake = fakes.youtube;
      models.videoFormat = 'gif';
      const item = await approvedItem('youtube').finally(() => {
        models.videoFormat = 'mp4';
      });
      expect(item.media).toEqual([expect.objectContaining({ kind: 'video' })]);
      expect(new URL(item.media[0].url as string).pathname).toMatch(/\.gif$/);
      fake.reset();
      const post = await schedule(item);
      const done = await finished(post.id, 'failed');
      expect(done).toMatchObject({ status: 'failed', remote_post_id: null, attempts: 1, next_attempt_at: null, error: { code: 'content_rejected' } });
      expect(fake.posts).toHaveLength(0);
      expect(publishCalls('youtube')).toHaveLength(0);
    });

    it('a 400 on the publish call fails the post as content_rejected after one attempt, without a retry', async () => {
      const fake = fakes.twitter;
      const item = await approvedItem('twitter');
      fake.reset();
      fake.setMode({ kind: 'fail', status: 400, times: 1 });
      const post = await schedule(item);
      const done = await finished(post.id, 'failed');
      expect(done).toMatchObject({ status: 'failed', remote_post_id: null, attempts: 1, next_attempt_at: null, error: { code: 'content_rejected' } });
      expect(fake.posts).toHaveLength(0);
      expect(publishCalls('twitter')).toHaveLength(1);
      const pending = await api(server).get('/schedule').query({ character_id: character, status: 'pending' }).set(user.auth);
      expect((pending.body.scheduled_posts as Post[]).some((p) => p.id === post.id)).toBe(false);
    });
  });

  describe('POST /schedule/{id}/publish-now', () => {
    it('publishes at once against the live platform: 200 with publish_result', async () => {
      const fake = fakes.pinterest;
      const item = await approvedItem('pinterest');
      fake.reset();
      const post = await schedule(item, 3600_000);
      const res = await api(server).post(`/schedule/${post.id}/publish-now`).set(user.auth);
      expect(res.status).toBe(200);
      expect(fake.posts).toHaveLength(1);
      const made = fake.posts[0];
      expect(res.body.scheduled_post).toMatchObject({ id: post.id, status: 'published', remote_post_id: made.id, attempts: 1, error: null });
      expect(res.body.publish_result).toEqual({ remote_post_id: made.id, media_urls: res.body.scheduled_post.media_urls });
      expect(res.body.publish_result.media_urls).toHaveLength(1);
      expect(made.text).toBe(postText(item));
      expect((await getItem(item.id)).status).toBe('published');
    });

    it('a platform error during publish-now is 502 upstream_failed with the publish error code', async () => {
      const fake = fakes.twitter;
      const item = await approvedItem('twitter');
      fake.reset();
      const post = await schedule(item, 3600_000);
      fake.setMode({ kind: 'fail', status: 400, times: 1 });
      const res = await api(server).post(`/schedule/${post.id}/publish-now`).set(user.auth);
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ code: 'upstream_failed', details: { platform: 'twitter', code: 'content_rejected' } });
      expect(fake.posts).toHaveLength(0);
      const done = await finished(post.id, 'failed', 5_000);
      expect(done).toMatchObject({ attempts: 1, error: { code: 'content_rejected' } });
    });
    it('names the platform as the client spelled it (x, not twitter), in the message, the details and the post alike', async () => {
      const fake = fakes.twitter;
      const generated = await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: 'x', prompt: `x spelling ${Date.now().toString(36)}`, type: 'single' });
      expect(generated.status).toBe(201);
      const id = generated.body.item.id as string;
      const item = await waitFor(async () => {
        const it = await getItem(id);
        return it.status === 'approved' ? it : undefined;
      }, 30_000, `item ${id} to be approved`);
      fake.reset();
      const post = await schedule(item, 3600_000);
      expect(post.platform).toBe('x');
      fake.setMode({ kind: 'fail', status: 503, times: 10 });
      const res = await api(server).post(`/schedule/${post.id}/publish-now`).set(user.auth);
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ code: 'upstream_failed', details: { platform: 'x', scheduled_post: { platform: 'x' } } });
      expect(JSON.stringify(res.body)).not.toMatch(/twitter/i);
      fake.reset();
    });
  });

  describe('DELETE /integrations/{p}', () => {
    /** What each fake must have seen: the platform's revoke endpoint, where it has one. */
    const REVOKE: Record<PlatformName, { path: string; method: string; count: number } | null> = {
      instagram: { path: '/v21.0/me/permissions', method: 'DELETE', count: 1 },
      twitter: { path: '/2/oauth2/revoke', method: 'POST', count: 2 },
      tiktok: { path: '/v2/oauth/revoke/', method: 'POST', count: 1 },
      youtube: { path: '/revoke', method: 'POST', count: 1 },
      pinterest: null,
    };

    it.each(PLATFORMS)('%s: 204, the tokens are revoked at the platform where it allows, and the connection shows disconnected', async (p) => {
      const fake = fakes[p];
      fake.reset();
      const res = await api(server).delete(`/integrations/${p}`).set(user.auth);
      expect(res.status).toBe(204);
      const revoke = REVOKE[p];
      if (revoke) {
        expect(fake.requestsTo(revoke.path, revoke.method)).toHaveLength(revoke.count);
        expect(fake.revoked).toHaveLength(revoke.count);
      } else {
        expect(fake.requests).toHaveLength(0);
      }
      expect(await integration(p)).toMatchObject({ platform: p, connected: false, status: 'disconnected', account: null, scopes: [] });
    });
  });
});
