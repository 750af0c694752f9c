import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { INSTAGRAM_PATHS, startInstagramFake, type InstagramFake } from '../../../../../test/fakes/platforms/instagram.js';
import type { RecordedRequest } from '../../../../../test/fakes/platforms/fake-platform.js';
import type { ConnectedAccount, PlatformClientOptions, PublishMedia, PublishRequest, ReconcileQuery, ReplyRequest } from '../../application/ports/platform-client.js';
import { InstagramClient } from './instagram-client.js';
import { consentCode, failure, fakeClientOptions, formOf, mediaAt, reconcileQueryFor } from './spec-fixtures.js';

const IG = '17841400008460056';
const REDIRECT = 'https://app.example.com/connections/instagram/callback';
const CAPTION = 'Tomatoes on the balcony at golden hour 🍅 #gardening #balcony';
let fake: InstagramFake;
let connected: ConnectedAccount;

const client = (over: Partial<PlatformClientOptions> = {}) => new InstagramClient(fakeClientOptions(fake, INSTAGRAM_PATHS, over));

/** The code the consent page of `c` redirects back with. */
const consent = (c = client()) => consentCode(c.authorizeUrl({ state: 'st_1', redirectUri: REDIRECT }));

async function connect(): Promise<ConnectedAccount> {
  const c = client();
  return c.exchangeCode({ code: await consent(c), redirectUri: REDIRECT });
}

/** Instagram pulls the media by URL. */
const image = (n = 1): PublishMedia => mediaAt('image', `https://cdn.example.com/media/tomato-${n}.jpg`);
const video = (n = 1): PublishMedia => mediaAt('video', `https://cdn.example.com/media/clip-${n}.mp4`);

function request(over: Partial<PublishRequest> = {}): PublishRequest {
  return {
    postId: 'post_01J0000000000000000000000',
    accessToken: connected.accessToken,
    account: connected.account,
    contentType: 'single',
    text: CAPTION,
    title: 'Tomatoes',
    media: [image()],
    ...over,
  };
}

/** Reconcile after the default `request()` went unanswered. */
const reconcileQuery = (over: Partial<ReconcileQuery> = {}): ReconcileQuery => reconcileQueryFor(request(), over);

const route = (r: RecordedRequest) => `${r.method} ${r.path}`;
const containerCreates = () => fake.requestsTo(`/v21.0/${IG}/media`, 'POST');
const publishCalls = () => fake.requestsTo(`/v21.0/${IG}/media_publish`, 'POST');

beforeAll(async () => {
  fake = await startInstagramFake();
});
afterAll(() => fake.close());
beforeEach(async () => {
  fake.reset();
  connected = await connect();
  fake.requests.length = 0;
});

describe('InstagramClient: connection', () => {
  it('builds the Facebook consent URL with comma-separated scopes and no PKCE', () => {
    const c = client();
    expect(c.supportsPkce).toBe(false);
    const url = new URL(c.authorizeUrl({ state: 'st_42', redirectUri: REDIRECT, codeChallenge: 'ignored-challenge' }));
    expect(url.origin + url.pathname).toBe(fake.url + '/v21.0/dialog/oauth');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'instagram-client',
      redirect_uri: REDIRECT,
      state: 'st_42',
      scope: 'instagram_basic,instagram_content_publish,instagram_manage_insights,instagram_manage_comments,instagram_manage_messages,pages_show_list,pages_read_engagement,business_management',
      response_type: 'code',
    });
  });

  it('exchanges the code, swaps it for a long-lived token and finds the linked Instagram account', async () => {
    const c = client();
    const code = await consent(c);
    fake.requests.length = 0;
    const account = await c.exchangeCode({ code, redirectUri: REDIRECT });

    expect(fake.requests.map(route)).toEqual([
      'GET /v21.0/oauth/access_token',
      'GET /v21.0/oauth/access_token',
      'GET /v21.0/me/permissions',
      'GET /v21.0/me/accounts',
    ]);
    const [codeGrant, exchange, , pages] = fake.requests;
    expect(Object.fromEntries(codeGrant.query)).toEqual({ client_id: 'instagram-client', client_secret: 'instagram-secret', redirect_uri: REDIRECT, code });
    const shortToken = exchange.query.get('fb_exchange_token');
    expect(Object.fromEntries(exchange.query)).toEqual({
      grant_type: 'fb_exchange_token',
      client_id: 'instagram-client',
      client_secret: 'instagram-secret',
      fb_exchange_token: shortToken,
    });
    expect(shortToken).not.toBe(account.accessToken);
    expect(pages.headers.authorization).toBe(`Bearer ${account.accessToken}`);
    expect(pages.query.get('fields')).toBe('id,name,instagram_business_account{id,username}');

    expect(account.account).toEqual({ id: IG, name: 'luna.grows' });
    expect(account.refreshToken).toBe(account.accessToken);
    const days = (account.expiresAt!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(59);
    expect(days).toBeLessThanOrEqual(60);
    expect(account.scopes).toEqual([...c.scopes]);
  });

  it('surfaces a code used twice or sent with another redirect URI as token_expired', async () => {
    const c = client();
    const code = await consent(c);
    await c.exchangeCode({ code, redirectUri: REDIRECT });
    expect((await failure(c.exchangeCode({ code, redirectUri: REDIRECT }))).code).toBe('token_expired');
    const other = await consent(c);
    expect((await failure(c.exchangeCode({ code: other, redirectUri: 'https://evil.example.com/cb' }))).code).toBe('token_expired');
  });

  it('refuses a login whose Pages have no Instagram professional account', async () => {
    fake.settings.linked = false;
    const err = await failure(connect());
    expect(err.code).toBe('unknown_error');
    expect(err.message).toMatch(/no Instagram professional account is linked/);
  });

  it('refreshes by exchanging the current long-lived token for a new one', async () => {
    const tokens = await client().refresh(connected.refreshToken!);
    const [exchange] = fake.requestsTo('/v21.0/oauth/access_token');
    expect(exchange.query.get('grant_type')).toBe('fb_exchange_token');
    expect(exchange.query.get('fb_exchange_token')).toBe(connected.refreshToken);
    expect(tokens.accessToken).not.toBe(connected.accessToken);
    expect(tokens.refreshToken).toBe(tokens.accessToken);
    expect(tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 59 * 86_400_000);
    const result = await client().publish(request({ accessToken: tokens.accessToken }));
    expect(result.remotePostId).toBe(fake.posts[0].id);
  });

  it('reports a refused or expired re-exchange as token_expired', async () => {
    fake.refuseRefresh = true;
    expect((await failure(client().refresh(connected.refreshToken!))).code).toBe('token_expired');
    fake.refuseRefresh = false;
    fake.expireTokens();
    const err = await failure(client().refresh(connected.refreshToken!));
    expect(err.code).toBe('token_expired');
    expect(err.message).toMatch(/code 190/);
  });

  it('revokes the permissions with the token and never throws', async () => {
    await client().revoke({ accessToken: connected.accessToken, refreshToken: connected.refreshToken });
    const [revocation] = fake.requestsTo('/v21.0/me/permissions', 'DELETE');
    expect(revocation.headers.authorization).toBe(`Bearer ${connected.accessToken}`);
    expect(fake.revoked).toEqual([connected.accessToken]);
    expect((await failure(client().publish(request()))).code).toBe('token_expired');
    // Revoking again: Graph refuses the dead token, the revoke still resolves.
    await expect(client().revoke({ accessToken: connected.accessToken, refreshToken: null })).resolves.toBeUndefined();
  });
});

describe('InstagramClient: publish', () => {
  it('publishes a single image: container, status, media_publish, permalink', async () => {
    const result = await client().publish(request());

    expect(fake.requests.map(route)).toEqual([
      `POST /v21.0/${IG}/media`,
      expect.stringMatching(/^GET \/v21\.0\/\d+$/),
      `POST /v21.0/${IG}/media_publish`,
      expect.stringMatching(/^GET \/v21\.0\/\d+$/),
    ]);
    const [create, status, publish, lookup] = fake.requests;
    expect(formOf(create)).toEqual({ image_url: 'https://cdn.example.com/media/tomato-1.jpg', caption: CAPTION });
    expect(create.headers.authorization).toBe(`Bearer ${connected.accessToken}`);
    const containerId = status.path.split('/').pop();
    expect(status.query.get('fields')).toBe('status_code,status');
    expect(formOf(publish)).toEqual({ creation_id: containerId });
    expect(lookup.query.get('fields')).toBe('permalink,media_url,children{media_url}');

    expect(fake.posts).toHaveLength(1);
    const [post] = fake.posts;
    expect(post).toMatchObject({ accountId: IG, text: CAPTION, mediaUrls: ['https://cdn.example.com/media/tomato-1.jpg'], extra: { media_type: 'IMAGE' } });
    expect(lookup.path).toBe(`/v21.0/${post.id}`);
    expect(result).toEqual({
      remotePostId: post.id,
      remoteUrl: expect.stringMatching(/^https:\/\/www\.instagram\.com\/p\/C[\w-]+\/$/),
      mediaUrls: [`https://scontent.cdninstagram.com/v/t51/${post.id}_0.jpg`],
    });
  });

  it('polls a container until Instagram has processed it', async () => {
    fake.settings.pollsToFinish = 4;
    await client().publish(request({ contentType: 'reel', media: [video()] }));
    const statusReads = fake.requests.filter((r) => r.method === 'GET' && /^\/v21\.0\/\d+$/.test(r.path) && r.query.get('fields') === 'status_code,status');
    expect(statusReads).toHaveLength(4);
    expect(fake.posts).toHaveLength(1);
  });

  it.each(['reel', 'video', 'short'])('publishes a %s as REELS with the video URL and caption', async (contentType) => {
    const result = await client().publish(request({ contentType, media: [video()] }));
    expect(containerCreates().map(formOf)).toEqual([{ media_type: 'REELS', video_url: 'https://cdn.example.com/media/clip-1.mp4', caption: CAPTION }]);
    expect(fake.posts).toHaveLength(1);
    expect(fake.posts[0]).toMatchObject({ text: CAPTION, mediaUrls: ['https://cdn.example.com/media/clip-1.mp4'], extra: { media_type: 'REELS' } });
    expect(result.remoteUrl).toMatch(/^https:\/\/www\.instagram\.com\/reel\//);
    expect(result.mediaUrls).toEqual([`https://scontent.cdninstagram.com/v/t51/${fake.posts[0].id}_0.mp4`]);
  });

  it.each([
    ['image', image(), { media_type: 'STORIES', image_url: 'https://cdn.example.com/media/tomato-1.jpg' }],
    ['video', video(), { media_type: 'STORIES', video_url: 'https://cdn.example.com/media/clip-1.mp4' }],
  ] as const)('publishes a story from an %s, without a caption', async (_kind, media, expected) => {
    const result = await client().publish(request({ contentType: 'story', media: [media] }));
    expect(containerCreates().map(formOf)).toEqual([expected]);
    expect(publishCalls()).toHaveLength(1);
    expect(fake.posts).toHaveLength(1);
    expect(fake.posts[0]).toMatchObject({ text: '', mediaUrls: [media.url], extra: { media_type: 'STORIES' } });
    expect(result.remotePostId).toBe(fake.posts[0].id);
  });

  it('publishes a carousel: one child container per item, then the parent with the children in order', async () => {
    const media = [image(1), video(2), image(3)];
    const result = await client().publish(request({ contentType: 'carousel', media }));

    const creates = containerCreates();
    expect(creates.map(formOf).slice(0, 3)).toEqual([
      { image_url: media[0].url, is_carousel_item: 'true' },
      { media_type: 'VIDEO', video_url: media[1].url, is_carousel_item: 'true' },
      { image_url: media[2].url, is_carousel_item: 'true' },
    ]);
    const childIds = [...fake.containers.values()].filter((c) => c.isCarouselItem).map((c) => c.id);
    expect(formOf(creates[3])).toEqual({ media_type: 'CAROUSEL', caption: CAPTION, children: childIds.join(',') });
    // Every child is read until finished before the parent names it.
    const statusPaths = fake.requests.filter((r) => r.query.get('fields') === 'status_code,status').map((r) => r.path.split('/').pop());
    expect(statusPaths.slice(0, 3)).toEqual(childIds);

    expect(publishCalls()).toHaveLength(1);
    expect(fake.posts).toHaveLength(1);
    const [post] = fake.posts;
    expect(post).toMatchObject({ text: CAPTION, mediaUrls: media.map((m) => m.url), extra: { media_type: 'CAROUSEL', children: childIds } });
    expect(result.mediaUrls).toEqual([0, 1, 2].map((i) => `https://scontent.cdninstagram.com/v/t51/${post.id}_${i}.${i === 1 ? 'mp4' : 'jpg'}`));
  });

  it.each([
    ['an unknown content type', { contentType: 'thread' }, /does not publish thread posts/],
    ['a single post without media', { media: [] }, /exactly 1 image; this one has 0/],
    ['a single post with a video', { media: [video()] }, /image only; this one holds a video/],
    ['a single post with two images', { media: [image(1), image(2)] }, /exactly 1 image; this one has 2/],
    ['a reel with an image', { contentType: 'reel', media: [image()] }, /video only; this one holds a still image/],
    ['a story with two items', { contentType: 'story', media: [image(1), image(2)] }, /exactly 1 image or video/],
    ['a carousel of one', { contentType: 'carousel', media: [image()] }, /2 to 10/],
    ['a carousel of eleven', { contentType: 'carousel', media: Array.from({ length: 11 }, (_, i) => image(i)) }, /2 to 10/],
    ['a caption over 2200 characters', { text: 'a'.repeat(2201) }, /2200 characters/],
    ['a caption with 31 hashtags', { text: Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(' ') }, /30 hashtags/],
  ] as const)('rejects %s before any call', async (_what, over, message) => {
    const err = await failure(client().publish(request(over as Partial<PublishRequest>)));
    expect(err).toMatchObject({ code: 'content_rejected', point: 'before' });
    expect(err.message).toMatch(message);
    expect(fake.requests).toHaveLength(0);
  });

  it('keeps a post whose permalink look-up fails, with our media URLs', async () => {
    fake.settings.failMediaLookup = true;
    const result = await client().publish(request());
    expect(fake.posts).toHaveLength(1);
    expect(result).toEqual({ remotePostId: fake.posts[0].id, remoteUrl: null, mediaUrls: ['https://cdn.example.com/media/tomato-1.jpg'] });
  });
});

describe('InstagramClient: publish failures', () => {
  it('maps a 401 to token_expired', async () => {
    fake.setMode({ kind: 'fail', status: 401, times: 1, on: 'prepare' });
    expect(await failure(client().publish(request()))).toMatchObject({ code: 'token_expired', point: 'before' });
    expect(fake.posts).toHaveLength(0);
  });

  it('maps Graph code 190 on HTTP 400 (an expired token) to token_expired', async () => {
    fake.expireTokens();
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'token_expired', point: 'before' });
    expect(err.message).toMatch(/Session has expired.*code 190\/463/);
  });

  it('maps a 429 on media_publish to rate_limited before, with Retry-After, sent once', async () => {
    fake.setMode({ kind: 'rate_limit', times: 1, retryAfterSeconds: 7 });
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'rate_limited', point: 'before', retryAfterMs: 7_000 });
    expect(publishCalls()).toHaveLength(1);
    expect(fake.posts).toHaveLength(0);
  });

  it.each([
    [4, undefined, 'Application request limit reached'],
    [9, 2207042, 'You reached maximum number of posts that is allowed to be published by Content Publishing API.'],
    [613, undefined, 'Calls to this api have exceeded the rate limit.'],
  ])('maps Graph throttle code %i on HTTP 400 to rate_limited before', async (code, subcode, message) => {
    fake.setMode({ kind: 'fail', status: 400, times: 1, body: { error: { message, type: 'OAuthException', code, error_subcode: subcode, fbtrace_id: 'Ax' } } });
    expect(await failure(client().publish(request()))).toMatchObject({ code: 'rate_limited', point: 'before' });
    expect(fake.posts).toHaveLength(0);
  });

  it('maps other Graph refusals of media_publish to content_rejected before', async () => {
    const body = { error: { message: 'The aspect ratio is not supported.', type: 'OAuthException', code: 36003, error_subcode: 2207009, fbtrace_id: 'Ax' } };
    fake.setMode({ kind: 'fail', status: 400, times: 1, body });
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'content_rejected', point: 'before' });
    expect(err.message).toMatch(/aspect ratio/);
  });

  it('treats a transient Graph error on media_publish as an unknown outcome', async () => {
    const body = { error: { message: 'Instagram server error. Try again.', type: 'OAuthException', code: -1, error_subcode: 2207001, is_transient: true } };
    fake.setMode({ kind: 'fail', status: 400, times: 1, body });
    expect(await failure(client().publish(request()))).toMatchObject({ code: 'network_error', point: 'unknown' });
    expect(publishCalls()).toHaveLength(1);
  });

  it('reports a 500 on media_publish as network_error unknown, without sending it again', async () => {
    fake.setMode({ kind: 'fail', status: 500, times: 5 });
    expect(await failure(client().publish(request()))).toMatchObject({ code: 'network_error', point: 'unknown' });
    expect(publishCalls()).toHaveLength(1);
  });

  it('reports a lost reply as unknown; Graph then refuses the same container a second time', async () => {
    fake.setMode({ kind: 'lose_reply', times: 1 });
    expect(await failure(client().publish(request()))).toMatchObject({ code: 'network_error', point: 'unknown' });
    expect(fake.posts).toHaveLength(1);

    const [sent] = publishCalls();
    const again = await fetch(fake.url + sent.path, {
      method: 'POST',
      headers: { Authorization: `Bearer ${connected.accessToken}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: sent.body.toString(),
    });
    expect(again.status).toBe(400);
    expect(((await again.json()) as any).error.message).toMatch(/already been published/);
    expect(fake.posts).toHaveLength(1);
  });

  it('reports a media_publish that never answers as network_error unknown', async () => {
    fake.setMode({ kind: 'hang' });
    const err = await failure(client({ timeoutMs: 300 }).publish(request()));
    expect(err).toMatchObject({ code: 'network_error', point: 'unknown' });
    expect(publishCalls()).toHaveLength(1);
  });

  it('reports a failing container call as before, retried, and never publishes', async () => {
    fake.setMode({ kind: 'fail', status: 503, times: 3, on: 'prepare' });
    expect(await failure(client().publish(request()))).toMatchObject({ code: 'network_error', point: 'before' });
    expect(containerCreates()).toHaveLength(3);
    expect(publishCalls()).toHaveLength(0);
  });

  it.each(['ERROR', 'EXPIRED'] as const)('reports a container ending %s as content_rejected, never publishing', async (outcome) => {
    fake.settings.containerOutcome = outcome;
    const err = await failure(client().publish(request({ contentType: 'reel', media: [video()] })));
    expect(err).toMatchObject({ code: 'content_rejected', point: 'before' });
    expect(err.message).toContain(outcome);
    expect(publishCalls()).toHaveLength(0);
  });

  it('gives up on a container still processing after pollTimeoutMs, before publishing', async () => {
    fake.settings.pollsToFinish = 1_000_000;
    const err = await failure(client({ pollTimeoutMs: 60 }).publish(request()));
    expect(err).toMatchObject({ code: 'network_error', point: 'before' });
    expect(err.message).toMatch(/within 60 ms/);
    expect(publishCalls()).toHaveLength(0);
  });
});

describe('InstagramClient: reconcile', () => {
  async function lostPost(): Promise<string> {
    fake.setMode({ kind: 'lose_reply', times: 1 });
    await failure(client().publish(request()));
    fake.requests.length = 0;
    return fake.posts[0].id;
  }

  it('finds the post whose reply was lost by its caption', async () => {
    const id = await lostPost();
    const found = await client().reconcile(reconcileQuery());
    const [list] = fake.requests;
    expect(route(list)).toBe(`GET /v21.0/${IG}/media`);
    expect(list.query.get('fields')).toBe('id,caption,permalink,timestamp,media_url,children{media_url}');
    expect(list.query.get('limit')).toBe('50');
    expect(list.headers.authorization).toBe(`Bearer ${connected.accessToken}`);
    expect(found).toEqual({
      remotePostId: id,
      remoteUrl: expect.stringMatching(/^https:\/\/www\.instagram\.com\/p\//),
      mediaUrls: [`https://scontent.cdninstagram.com/v/t51/${id}_0.jpg`],
    });
  });

  it('allows 60 s of clock skew on since, and no more', async () => {
    const id = await lostPost();
    const created = fake.posts[0].createdAt.getTime();
    expect((await client().reconcile(reconcileQuery({ since: new Date(created + 50_000) })))?.remotePostId).toBe(id);
    expect(await client().reconcile(reconcileQuery({ since: new Date(created + 70_000) }))).toBeNull();
  });

  it('answers null when no recent post has the caption', async () => {
    await lostPost();
    expect(await client().reconcile(reconcileQuery({ text: 'Another caption entirely' }))).toBeNull();
  });

  it('never matches a post already recorded for another post', async () => {
    const id = await lostPost();
    expect(await client().reconcile(reconcileQuery({ knownRemoteIds: new Set([id]) }))).toBeNull();
    const second = await client().publish(request());
    expect((await client().reconcile(reconcileQuery({ knownRemoteIds: new Set([id]) })))?.remotePostId).toBe(second.remotePostId);
  });
});

describe('InstagramClient.sendReply', () => {
  const reply = (over: Partial<ReplyRequest> = {}): ReplyRequest => ({
    accessToken: connected.accessToken, account: connected.account, channel: 'comment', target: '', text: 'Thank you! 🍅', replyId: 'msg_01', ...over,
  });
  const commentOn = () => fake.receiveComment({ mediaId: '17900000000000001', text: 'Which variety is this?', fromId: '17841400000000999', username: 'tomato.fan' });

  it('answers a comment under it with POST /{comment-id}/replies and the message as a form field', async () => {
    const comment = commentOn();
    const sent = await client().sendReply(reply({ target: comment.id }));
    expect(fake.replies).toEqual([expect.objectContaining({ channel: 'comment', target: comment.id, text: 'Thank you! 🍅', id: sent.remoteMessageId, accountId: IG })]);
    const [call] = fake.requestsTo(`/v21.0/${comment.id}/replies`, 'POST');
    expect(formOf(call)).toEqual({ message: 'Thank you! 🍅' });
    expect(call.headers.authorization).toBe(`Bearer ${connected.accessToken}`);
  });

  it('writes to someone who messaged the account within 24 hours through the Messaging API', async () => {
    fake.receiveMessage({ fromId: '6123456789012345', text: 'hi Luna!' });
    const sent = await client().sendReply(reply({ channel: 'dm', target: '6123456789012345', text: 'Hi! 👋' }));
    expect(sent.remoteMessageId).toMatch(/^aWdfZAG1/);
    expect(fake.replies).toEqual([expect.objectContaining({ channel: 'dm', target: '6123456789012345', text: 'Hi! 👋', id: sent.remoteMessageId })]);
    const [call] = fake.requestsTo(`/v21.0/${IG}/messages`, 'POST');
    expect(JSON.parse(call.body.toString())).toEqual({ recipient: { id: '6123456789012345' }, message: { text: 'Hi! 👋' } });
  });

  it('surfaces a message outside the 24-hour window as content_rejected, nothing sent', async () => {
    fake.receiveMessage({ fromId: '6123456789012345', text: 'hi', at: new Date(Date.now() - 25 * 3600_000) });
    const err = await failure(client().sendReply(reply({ channel: 'dm', target: '6123456789012345' })));
    expect([err.code, err.point]).toEqual(['content_rejected', 'before']);
    expect(err.message).toContain('outside of allowed window');
    expect(fake.replies).toEqual([]);
  });

  it('refuses a comment reply over 2,200 characters and a message over 1,000 before any call', async () => {
    const comment = commentOn();
    const long = await failure(client().sendReply(reply({ target: comment.id, text: 'a'.repeat(2201) })));
    expect([long.code, long.point, long.message]).toEqual(['content_rejected', 'before', 'Instagram takes replies of at most 2200 characters; this one has 2201.']);
    await client().sendReply(reply({ target: comment.id, text: '🍅'.repeat(2200) }));
    const dm = await failure(client().sendReply(reply({ channel: 'dm', target: '6123456789012345', text: 'b'.repeat(1001) })));
    expect(dm.code).toBe('content_rejected');
    expect(fake.requests.filter((r) => r.path.endsWith('/messages'))).toEqual([]);
    expect(fake.replies).toHaveLength(1);
  });

  it('maps a 429 with Retry-After to rate_limited before the send, and an expired token to token_expired', async () => {
    const comment = commentOn();
    fake.setMode({ kind: 'rate_limit', times: 1, retryAfterSeconds: 7, on: 'reply' });
    const limited = await failure(client().sendReply(reply({ target: comment.id })));
    expect([limited.code, limited.point, limited.retryAfterMs]).toEqual(['rate_limited', 'before', 7000]);
    fake.expireTokens();
    const expired = await failure(client().sendReply(reply({ target: comment.id })));
    expect([expired.code, expired.point]).toEqual(['token_expired', 'before']);
    expect(fake.replies).toEqual([]);
  });

  it('reports a 5xx after the reply was made, or no answer in time, as network_error with an unknown outcome, sent once', async () => {
    const comment = commentOn();
    fake.setMode({ kind: 'lose_reply', times: 1 });
    const lost = await failure(client().sendReply(reply({ target: comment.id })));
    expect([lost.code, lost.point]).toEqual(['network_error', 'unknown']);
    expect(fake.repliesTo(comment.id)).toHaveLength(1);
    expect(fake.requestsTo(`/v21.0/${comment.id}/replies`, 'POST')).toHaveLength(1);
    fake.setMode({ kind: 'hang', on: 'reply' });
    const silent = await failure(client({ timeoutMs: 200 }).sendReply(reply({ target: comment.id, text: 'again' })));
    expect([silent.code, silent.point]).toEqual(['network_error', 'unknown']);
  });

  it('answers a comment Graph does not know as content_rejected', async () => {
    const err = await failure(client().sendReply(reply({ target: '17999999999999999' })));
    expect([err.code, err.point]).toEqual(['content_rejected', 'before']);
  });
});
