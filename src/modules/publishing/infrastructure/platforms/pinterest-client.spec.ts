import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { PINTEREST_PATHS, startPinterestFake, type PinterestFake } from '../../../../../test/fakes/platforms/pinterest.js';
import type { ConnectedAccount, PlatformClientOptions, PublishMedia, PublishRequest } from '../../application/ports/platform-client.js';
import { clip, PinterestClient } from './pinterest-client.js';
import { consentCode, failure, fakeClientOptions, formOf, mediaAt, reconcileQueryFor } from './spec-fixtures.js';

const REDIRECT = 'https://app.example.com/oauth/pinterest/callback';
const BASIC = `Basic ${Buffer.from('pinterest-client:pinterest-secret').toString('base64')}`;
let fake: PinterestFake;
let connected: ConnectedAccount;

const client = (over: Partial<PlatformClientOptions> = {}) => new PinterestClient(fakeClientOptions(fake, PINTEREST_PATHS, over));

async function connect(): Promise<ConnectedAccount> {
  const code = await consentCode(client().authorizeUrl({ state: 's1', redirectUri: REDIRECT }));
  return client().exchangeCode({ code, redirectUri: REDIRECT });
}

/** Pinterest pulls the images by URL. */
const image = (n: number): PublishMedia => mediaAt('image', `https://cdn.example.com/p/${n}.jpg`);

const video = mediaAt('video', 'https://cdn.example.com/v.mp4');

function request(over: Partial<PublishRequest> = {}): PublishRequest {
  return {
    postId: 'post_1',
    accessToken: connected.accessToken,
    account: connected.account,
    contentType: 'single',
    text: `Tomatoes ripening on the balcony ${randomBytes(3).toString('hex')} #garden`,
    title: 'Balcony tomatoes',
    media: [image(1)],
    boardId: '1001',
    ...over,
  };
}

const pinCalls = () => fake.requestsTo('/v5/pins', 'POST');
const pinBody = (i = 0) => JSON.parse(pinCalls()[i].body.toString());

beforeAll(async () => {
  fake = await startPinterestFake();
  connected = await connect();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe('PinterestClient OAuth', () => {
  it('builds the consent URL with comma-separated scopes and no PKCE', () => {
    const url = new URL(client().authorizeUrl({ state: 'st-7', redirectUri: REDIRECT, codeChallenge: 'ignored' }));
    expect(url.origin + url.pathname).toBe(`${fake.url}/oauth/`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'pinterest-client',
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'boards:read,boards:write,pins:read,pins:write,user_accounts:read',
      state: 'st-7',
    });
    expect(client().supportsPkce).toBe(false);
  });

  it('exchanges the code with Basic auth and names the account by username', async () => {
    const account = await connect();
    expect(account.account).toEqual({ id: 'lunagrows', name: 'lunagrows' });
    expect(account.refreshToken).toMatch(/^rt_/);
    expect(account.scopes).toEqual(['boards:read', 'boards:write', 'pins:read', 'pins:write', 'user_accounts:read']);
    expect(account.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 2_500_000_000);
    const [grant] = fake.requestsTo('/v5/oauth/token', 'POST');
    expect(grant.headers.authorization).toBe(BASIC);
    expect(formOf(grant)).toEqual({ grant_type: 'authorization_code', code: expect.stringMatching(/^code_/), redirect_uri: REDIRECT });
    expect(fake.requestsTo('/v5/user_account', 'GET')[0].headers.authorization).toBe(`Bearer ${account.accessToken}`);
  });

  it('refuses a used code as token_expired', async () => {
    const code = await consentCode(client().authorizeUrl({ state: 's', redirectUri: REDIRECT }));
    await client().exchangeCode({ code, redirectUri: REDIRECT });
    expect((await failure(client().exchangeCode({ code, redirectUri: REDIRECT }))).code).toBe('token_expired');
  });

  it('refreshes with Basic auth; a refused refresh is token_expired', async () => {
    const first = await connect();
    const renewed = await client().refresh(first.refreshToken!);
    expect(renewed.accessToken).not.toBe(first.accessToken);
    expect(renewed.refreshToken).toMatch(/^rt_/);
    const grant = fake.requestsTo('/v5/oauth/token', 'POST').at(-1)!;
    expect(grant.headers.authorization).toBe(BASIC);
    expect(formOf(grant)).toEqual({ grant_type: 'refresh_token', refresh_token: first.refreshToken });
    fake.refuseRefresh = true;
    expect((await failure(client().refresh(renewed.refreshToken!))).code).toBe('token_expired');
  });

  it('revokes without any call (Pinterest has no revoke endpoint)', async () => {
    await client().revoke();
    expect(fake.requests).toHaveLength(0);
  });
});

describe('PinterestClient boards', () => {
  it('lists the account boards', async () => {
    expect(await client().listBoards(connected.accessToken)).toEqual([
      { id: '1001', name: 'Balcony garden', privacy: 'public' },
      { id: '1002', name: 'Recipes', privacy: 'secret' },
    ]);
    expect(fake.requestsTo('/v5/boards', 'GET')[0].query.get('page_size')).toBe('100');
  });

  it('follows the bookmark across pages', async () => {
    const extra = Array.from({ length: 150 }, (_v, i) => ({ id: String(2000 + i), name: `Board ${i}`, privacy: 'PUBLIC' as const, owner: 'lunagrows' }));
    fake.boards.push(...extra, { id: '9999', name: 'Someone else', privacy: 'PUBLIC', owner: 'other' });
    try {
      const boards = await client().listBoards(connected.accessToken);
      expect(boards).toHaveLength(152);
      expect(boards.at(-1)!.id).toBe('2149');
      const calls = fake.requestsTo('/v5/boards', 'GET');
      expect(calls.map((c) => c.query.get('bookmark'))).toEqual([null, expect.any(String)]);
    } finally {
      fake.boards.splice(2);
    }
  });
});

describe('PinterestClient publish', () => {
  it('pins a single image to the board', async () => {
    const req = request();
    const result = await client().publish(req);
    expect(pinCalls()).toHaveLength(1);
    expect(pinCalls()[0].headers.authorization).toBe(`Bearer ${connected.accessToken}`);
    expect(pinBody()).toEqual({
      board_id: '1001',
      title: 'Balcony tomatoes',
      description: req.text,
      media_source: { source_type: 'image_url', url: 'https://cdn.example.com/p/1.jpg' },
    });
    expect(fake.posts).toHaveLength(1);
    const [post] = fake.posts;
    expect([post.text, post.title, post.boardId]).toEqual([req.text, 'Balcony tomatoes', '1001']);
    expect(result).toEqual({ remotePostId: post.id, remoteUrl: `https://www.pinterest.com/pin/${post.id}/`, mediaUrls: post.mediaUrls });
    expect(result.mediaUrls[0]).toContain('/pinimg/1200x/');
  });

  it('pins a carousel of 2 to 5 images with the served URLs', async () => {
    const req = request({ contentType: 'carousel', media: [image(1), image(2), image(3)], boardId: '1002' });
    const result = await client().publish(req);
    expect(pinBody().media_source).toEqual({ source_type: 'multiple_image_urls', items: req.media.map((m) => ({ url: m.url })) });
    expect(pinBody().board_id).toBe('1002');
    expect(fake.posts).toHaveLength(1);
    expect(result.mediaUrls).toEqual(fake.posts[0].mediaUrls);
    expect(result.mediaUrls).toHaveLength(3);
  });

  it('clips the title to 100 and the description to 800 characters on a word boundary', async () => {
    const long = 'Basil loves the sun and a daily drink of water. '.repeat(30);
    await client().publish(request({ title: 'A very long title about tomatoes '.repeat(5), text: long }));
    const body = pinBody();
    expect(body.title.length).toBeLessThanOrEqual(100);
    expect(body.description.length).toBeLessThanOrEqual(800);
    expect(body.description).toMatch(/\w…$/);
    expect(long.startsWith(body.description.slice(0, -1))).toBe(true);
    expect(long[body.description.length - 1]).toBe(' ');
    expect(clip('short', 10)).toBe('short');
    expect(clip('abcdefghijkl', 5)).toBe('abcd…');
  });

  it.each([
    ['a video', { contentType: 'video', media: [video] }],
    ['a video in a carousel', { contentType: 'carousel', media: [image(1), video] }],
    ['a one-image carousel', { contentType: 'carousel', media: [image(1)] }],
    ['a six-image carousel', { contentType: 'carousel', media: [1, 2, 3, 4, 5, 6].map(image) }],
    ['a story', { contentType: 'story' }],
    ['a single without media', { media: [] }],
  ])('rejects %s before any call', async (_what, over) => {
    const err = await failure(client().publish(request(over)));
    expect([err.code, err.point]).toEqual(['content_rejected', 'before']);
    expect(fake.requests).toHaveLength(0);
  });

  it('asks for a default board when there is none, before any call', async () => {
    const err = await failure(client().publish(request({ boardId: null })));
    expect([err.code, err.point]).toEqual(['content_rejected', 'before']);
    expect(err.message).toContain('choose a default board');
    expect(fake.requests).toHaveLength(0);
  });

  it('reports a board that is not the account’s as content_rejected', async () => {
    const err = await failure(client().publish(request({ boardId: '4242' })));
    expect([err.code, err.point]).toEqual(['content_rejected', 'before']);
    expect(err.message).toContain('board');
    expect(fake.posts).toHaveLength(0);
  });

  it('answers token_expired for an expired token and for an auth error code', async () => {
    fake.setMode({ kind: 'fail', status: 403, times: 1, body: { code: 3, message: 'Authorization failed.' } });
    expect((await failure(client().publish(request()))).code).toBe('token_expired');
    const session = await connect();
    fake.expireTokens();
    expect((await failure(client().publish(request({ accessToken: session.accessToken })))).code).toBe('token_expired');
    expect(fake.posts).toHaveLength(0);
    connected = await connect();
  });

  it('keeps a plain 400 as content_rejected', async () => {
    fake.setMode({ kind: 'fail', status: 400, times: 1, body: { code: 1, message: 'Invalid image.' } });
    const err = await failure(client().publish(request()));
    expect([err.code, err.point]).toEqual(['content_rejected', 'before']);
  });

  it('reports a 429 on the Pin as rate_limited before, with the wait', async () => {
    fake.setMode({ kind: 'rate_limit', times: 1, retryAfterSeconds: 3 });
    const err = await failure(client().publish(request()));
    expect([err.code, err.point, err.retryAfterMs]).toEqual(['rate_limited', 'before', 3000]);
    expect(pinCalls()).toHaveLength(1);
    expect(fake.posts).toHaveLength(0);
  });

  it('reports a lost reply as an unknown outcome, sent once', async () => {
    fake.setMode({ kind: 'lose_reply', times: 1 });
    const err = await failure(client().publish(request()));
    expect([err.code, err.point]).toEqual(['network_error', 'unknown']);
    expect(pinCalls()).toHaveLength(1);
    expect(fake.posts).toHaveLength(1);
  });

  it('reports a 500 on the Pin as unknown, without retrying', async () => {
    fake.setMode({ kind: 'fail', status: 500, times: 5 });
    const err = await failure(client().publish(request()));
    expect([err.code, err.point]).toEqual(['network_error', 'unknown']);
    expect(pinCalls()).toHaveLength(1);
  });

  it('reports a hanging Pin call as network_error unknown', async () => {
    fake.setMode({ kind: 'hang' });
    const err = await failure(client({ timeoutMs: 300 }).publish(request()));
    expect([err.code, err.point]).toEqual(['network_error', 'unknown']);
    expect(pinCalls()).toHaveLength(1);
  });

  it('reports a failing board look-up (a preparatory read) as before', async () => {
    fake.setMode({ kind: 'fail', status: 503, times: 10, on: 'read' });
    const err = await failure(client().listBoards(connected.accessToken));
    expect([err.code, err.point]).toEqual(['network_error', 'before']);
    expect(fake.requestsTo('/v5/boards', 'GET')).toHaveLength(3);
  });
});

describe('PinterestClient reconcile', () => {
  it('finds a Pin whose reply was lost by its description and title', async () => {
    const req = request({ contentType: 'carousel', media: [image(1), image(2)] });
    fake.setMode({ kind: 'lose_reply', times: 1 });
    await failure(client().publish(req));
    const [post] = fake.posts;
    expect(await client().reconcile(reconcileQueryFor(req))).toEqual({ remotePostId: post.id, remoteUrl: `https://www.pinterest.com/pin/${post.id}/`, mediaUrls: post.mediaUrls });
    expect(fake.requestsTo('/v5/boards/1001/pins', 'GET')[0].query.get('page_size')).toBe('100');
  });

  it('follows the bookmark when newer Pins bury the lost one, and stops at Pins older than the attempt', async () => {
    const req = request();
    fake.setMode({ kind: 'lose_reply', times: 1 });
    await failure(client().publish(req));
    const lost = fake.posts[0];
    fake.setMode({ kind: 'ok' });
    for (let i = 0; i < 150; i++) await client().publish(request({ text: `Newer pin ${i} ${randomBytes(3).toString('hex')}` }));
    expect((await client().reconcile(reconcileQueryFor(req)))?.remotePostId).toBe(lost.id);
    const pages = fake.requestsTo('/v5/boards/1001/pins', 'GET');
    expect(pages).toHaveLength(2);
    expect(pages[1].query.get('bookmark')).toBe('100');
    fake.requests.length = 0;
    expect(await client().reconcile(reconcileQueryFor(request({ text: 'never posted' }), { since: new Date(Date.now() + 3_600_000) }))).toBeNull();
    expect(fake.requestsTo('/v5/boards/1001/pins', 'GET')).toHaveLength(1);
  });

  it('finds a Pin with a clipped description', async () => {
    const req = request({ text: `${'Long caption about peppers. '.repeat(40)}${randomBytes(3).toString('hex')}` });
    const result = await client().publish(req);
    expect((await client().reconcile(reconcileQueryFor(req)))?.remotePostId).toBe(result.remotePostId);
  });

  it('answers null when no Pin matches the text or the title', async () => {
    const req = request();
    await client().publish(req);
    expect(await client().reconcile(reconcileQueryFor(req, { text: 'never pinned' }))).toBeNull();
    expect(await client().reconcile(reconcileQueryFor(req, { title: 'Another title' }))).toBeNull();
  });

  it('never matches a Pin already recorded, nor one older than `since`', async () => {
    const req = request();
    const result = await client().publish(req);
    expect(await client().reconcile(reconcileQueryFor(req, { knownRemoteIds: new Set([result.remotePostId]) }))).toBeNull();
    expect(await client().reconcile(reconcileQueryFor(req, { since: new Date(Date.now() + 120_000) }))).toBeNull();
  });

  it('answers null without a board or when the board is gone', async () => {
    const req = request();
    expect(await client().reconcile(reconcileQueryFor(req, { boardId: null }))).toBeNull();
    expect(fake.requests).toHaveLength(0);
    expect(await client().reconcile(reconcileQueryFor(req, { boardId: '4242' }))).toBeNull();
  });
});
