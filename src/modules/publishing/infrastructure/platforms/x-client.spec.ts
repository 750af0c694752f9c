import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { parseMultipart, startXFake, X_PATHS, type XFake } from '../../../../../test/fakes/platforms/x.js';
import type { CommentsQuery, ConnectedAccount, PlatformClientOptions, PublishMedia, PublishRequest, ReconcileQuery, ReplyRequest } from '../../application/ports/platform-client.js';
import { consentCode, failure, fakeClientOptions, formOf, mediaAt, pkce, reconcileQueryFor } from './spec-fixtures.js';
import { multipart, tweetText, tweetWeight, XClient } from './x-client.js';

const REDIRECT = 'https://app.example.com/oauth/twitter/callback';
let fake: XFake;
let connected: ConnectedAccount;

const client = (over: Partial<PlatformClientOptions> = {}) => new XClient(fakeClientOptions(fake, X_PATHS, over));

async function connect(): Promise<ConnectedAccount> {
  const { verifier, challenge } = pkce();
  const code = await consentCode(client().authorizeUrl({ state: 's1', redirectUri: REDIRECT, codeChallenge: challenge }));
  return client().exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: verifier });
}

/** X takes the photo bytes as an upload. */
const image = (n: number, contentType = 'image/jpeg'): PublishMedia =>
  mediaAt('image', `https://cdn.example.com/p/${n}.jpg`, { contentType, bytes: Buffer.from(`image-bytes-${n}-${'x'.repeat(64)}`) });

const video = mediaAt('video', 'https://cdn.example.com/v.mp4');

function request(over: Partial<PublishRequest> = {}): PublishRequest {
  return {
    postId: 'post_1',
    accessToken: connected.accessToken,
    account: connected.account,
    contentType: 'single',
    text: `Tomatoes ripening on the balcony & a cup of tea ${randomBytes(3).toString('hex')} #garden`,
    title: 'Balcony tomatoes',
    media: [image(1)],
    ...over,
  };
}

const uploads = () => fake.requestsTo('/2/media/upload', 'POST');
const tweets = () => fake.requestsTo('/2/tweets', 'POST');

beforeAll(async () => {
  fake = await startXFake();
  connected = await connect();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe('XClient OAuth', () => {
  it('builds the consent URL with the scopes and an S256 challenge', () => {
    const url = new URL(client().authorizeUrl({ state: 'st-42', redirectUri: REDIRECT, codeChallenge: 'abc' }));
    expect(url.origin + url.pathname).toBe(`${fake.url}/i/oauth2/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'x-client',
      redirect_uri: REDIRECT,
      scope: 'tweet.read tweet.write users.read media.write dm.read dm.write offline.access',
      state: 'st-42',
      code_challenge: 'abc',
      code_challenge_method: 'S256',
    });
  });

  it('exchanges the code with the PKCE verifier and Basic auth, and names the account by username', async () => {
    const account = await connect();
    expect(account.account).toEqual({ id: '1460000000000000001', name: 'luna_grows' });
    expect(account.accessToken).toMatch(/^at_/);
    expect(account.refreshToken).toMatch(/^rt_/);
    expect(account.scopes).toEqual(['tweet.read', 'tweet.write', 'users.read', 'media.write', 'dm.read', 'dm.write', 'offline.access']);
    expect(account.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 7_000_000);
    const [grant] = fake.requestsTo('/2/oauth2/token', 'POST');
    const form = new URLSearchParams(grant.body.toString());
    expect(form.get('grant_type')).toBe('authorization_code');
    expect(form.get('redirect_uri')).toBe(REDIRECT);
    expect(form.get('code_verifier')).toHaveLength(43);
    expect(grant.headers.authorization).toBe(`Basic ${Buffer.from('x-client:x-secret').toString('base64')}`);
    expect(fake.requestsTo('/2/users/me', 'GET')[0].headers.authorization).toBe(`Bearer ${account.accessToken}`);
  });

  it('refuses a code redeemed with the wrong verifier as token_expired', async () => {
    const { challenge } = pkce();
    const code = await consentCode(client().authorizeUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: challenge }));
    const err = await failure(client().exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: pkce().verifier }));
    expect(err.code).toBe('token_expired');
  });

  it('refreshes with the rotated refresh token, and a refused refresh is token_expired', async () => {
    const first = await connect();
    const renewed = await client().refresh(first.refreshToken!);
    expect(renewed.accessToken).not.toBe(first.accessToken);
    expect(renewed.refreshToken).toMatch(/^rt_/);
    expect(renewed.refreshToken).not.toBe(first.refreshToken);
    expect(formOf(fake.requestsTo('/2/oauth2/token', 'POST').at(-1)!)).toEqual({ grant_type: 'refresh_token', refresh_token: first.refreshToken });
    // The rotated-out token is no longer valid.
    expect((await failure(client().refresh(first.refreshToken!))).code).toBe('token_expired');
  });

  it('maps a refused refresh grant to token_expired', async () => {
    const first = await connect();
    fake.refuseRefresh = true;
    expect((await failure(client().refresh(first.refreshToken!))).code).toBe('token_expired');
  });

  it('revokes the refresh and access tokens with client auth, and never throws', async () => {
    const session = await connect();
    await client().revoke({ accessToken: session.accessToken, refreshToken: session.refreshToken });
    expect(fake.revoked).toEqual([session.refreshToken, session.accessToken]);
    const hints = fake.requestsTo('/2/oauth2/revoke', 'POST').map((r) => new URLSearchParams(r.body.toString()).get('token_type_hint'));
    expect(hints).toEqual(['refresh_token', 'access_token']);
    fake.setMode({ kind: 'fail', status: 400, times: 20, on: 'oauth' });
    await expect(client().revoke({ accessToken: 'at_x', refreshToken: null })).resolves.toBeUndefined();
  });
});

describe('XClient publish', () => {
  it('uploads the photo as multipart, then posts one tweet with it', async () => {
    const req = request();
    const result = await client().publish(req);
    expect(uploads()).toHaveLength(1);
    const upload = uploads()[0];
    expect(upload.headers.authorization).toBe(`Bearer ${connected.accessToken}`);
    const parts = parseMultipart(upload.body, upload.headers['content-type'])!;
    expect(parts.map((p) => [p.name, p.filename, p.contentType])).toEqual([
      ['media', 'image1.jpg', 'image/jpeg'],
      ['media_category', undefined, undefined],
    ]);
    expect(parts[0].data.equals(await req.media[0].read())).toBe(true);
    expect(parts[1].data.toString()).toBe('tweet_image');
    const [uploaded] = [...fake.uploads.values()];
    expect(JSON.parse(tweets()[0].body.toString())).toEqual({ text: req.text, media: { media_ids: [uploaded.id] } });
    expect(fake.posts).toHaveLength(1);
    expect(fake.posts[0].text).toBe(req.text);
    expect(result).toEqual({
      remotePostId: fake.posts[0].id,
      remoteUrl: `https://x.com/luna_grows/status/${fake.posts[0].id}`,
      mediaUrls: ['https://cdn.example.com/p/1.jpg'],
    });
  });

  it('posts a carousel of up to four photos in order', async () => {
    const req = request({ contentType: 'carousel', media: [image(1), image(2, 'image/png'), image(3), image(4)] });
    const result = await client().publish(req);
    expect(uploads()).toHaveLength(4);
    const ids = [...fake.uploads.values()].slice(-4).map((u) => u.id);
    expect(fake.uploads.get(ids[1])!.filename).toBe('image2.png');
    expect(JSON.parse(tweets()[0].body.toString()).media.media_ids).toEqual(ids);
    expect(fake.posts).toHaveLength(1);
    expect(fake.posts[0].mediaUrls).toEqual(ids.map((id) => `${fake.url}/media/${id}.jpg`));
    expect(result.mediaUrls).toEqual(req.media.map((m) => m.url));
  });

  it.each([
    ['a fifth photo', { contentType: 'carousel', media: [image(1), image(2), image(3), image(4), image(5)] }],
    ['a video', { contentType: 'carousel', media: [image(1), video] }],
    ['a video post', { contentType: 'video', media: [video] }],
    ['a story', { contentType: 'story', media: [image(1)] }],
    ['no media', { contentType: 'single', media: [] }],
    ['two photos on a single post', { contentType: 'single', media: [image(1), image(2)] }],
  ])('rejects %s before any call', async (_what, over) => {
    const err = await failure(client().publish(request(over)));
    expect([err.code, err.point]).toEqual(['content_rejected', 'before']);
    expect(fake.requests).toHaveLength(0);
  });

  it('truncates a long text to 280 weighted characters on a word boundary', async () => {
    const long = `${'Growing tomatoes on a tiny balcony is a lesson in patience. '.repeat(6)}#garden`;
    await client().publish(request({ text: long }));
    const sent = JSON.parse(tweets()[0].body.toString()).text as string;
    expect(sent).toBe(tweetText(long));
    expect(sent).toMatch(/\w…$/);
    expect(long.startsWith(sent.slice(0, -1))).toBe(true);
    expect(long[sent.length - 1]).toBe(' ');
    expect(tweetWeight(sent)).toBeLessThanOrEqual(280);
    expect(tweetWeight(sent)).toBeGreaterThan(260);
  });

  it('answers token_expired when the access token expired', async () => {
    const session = await connect();
    fake.expireTokens();
    const err = await failure(client().publish(request({ accessToken: session.accessToken })));
    expect(err.code).toBe('token_expired');
    expect(fake.posts).toHaveLength(0);
    connected = await connect();
  });

  it('reports a 429 on the tweet as rate_limited before, with the wait', async () => {
    fake.setMode({ kind: 'rate_limit', times: 1, retryAfterSeconds: 7 });
    const err = await failure(client().publish(request()));
    expect([err.code, err.point, err.retryAfterMs]).toEqual(['rate_limited', 'before', 7000]);
    expect(tweets()).toHaveLength(1);
    expect(fake.posts).toHaveLength(0);
  });

  it('reports a lost reply to the tweet as an unknown outcome, sent once', async () => {
    fake.setMode({ kind: 'lose_reply', times: 1 });
    const err = await failure(client().publish(request()));
    expect([err.code, err.point]).toEqual(['network_error', 'unknown']);
    expect(tweets()).toHaveLength(1);
    expect(fake.posts).toHaveLength(1);
  });

  it('reports a hanging tweet call as network_error unknown', async () => {
    fake.setMode({ kind: 'hang' });
    const err = await failure(client({ timeoutMs: 300 }).publish(request()));
    expect([err.code, err.point]).toEqual(['network_error', 'unknown']);
    expect(tweets()).toHaveLength(1);
  });

  it('retries a failing upload and reports it as before when it keeps failing', async () => {
    fake.setMode({ kind: 'fail', status: 503, times: 10, on: 'prepare' });
    const err = await failure(client().publish(request()));
    expect([err.code, err.point]).toEqual(['network_error', 'before']);
    expect(uploads()).toHaveLength(3);
    expect(tweets()).toHaveLength(0);
  });

  it('reports a photo X refuses to process as content_rejected before', async () => {
    const err = await failure(client().publish(request({ media: [image(1, 'image/tiff')] })));
    expect([err.code, err.point]).toEqual(['content_rejected', 'before']);
    expect(err.message).toContain('Unsupported media type');
    expect(tweets()).toHaveLength(0);
  });

  it('reports a duplicate tweet as content_rejected', async () => {
    const req = request();
    await client().publish(req);
    const err = await failure(client().publish({ ...req, postId: 'post_2' }));
    expect([err.code, err.point]).toEqual(['content_rejected', 'before']);
    expect(err.message).toContain('duplicate');
    expect(fake.posts).toHaveLength(1);
  });
});

describe('XClient reconcile', () => {
  // X posts have no title.
  const query = (text: string, over: Partial<ReconcileQuery> = {}) => reconcileQueryFor(request({ text }), { title: '', ...over });

  it('finds a tweet whose reply was lost, by its text, with its photo URLs', async () => {
    const req = request({ text: `Tea & <tomatoes> ${randomBytes(3).toString('hex')} https://example.com/shop`, contentType: 'carousel', media: [image(1), image(2)] });
    fake.setMode({ kind: 'lose_reply', times: 1 });
    await failure(client().publish(req));
    const found = await client().reconcile(query(req.text));
    const post = fake.posts[0];
    expect(found).toEqual({ remotePostId: post.id, remoteUrl: `https://x.com/luna_grows/status/${post.id}`, mediaUrls: post.mediaUrls });
    const list = fake.requestsTo(`/2/users/${connected.account.id}/tweets`, 'GET')[0];
    expect(list.query.get('max_results')).toBe('100');
    expect(list.query.get('start_time')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(list.query.get('tweet.fields')).toContain('created_at');
  });

  it('finds a truncated long text', async () => {
    const long = `${'A long caption about basil and patience. '.repeat(10)}${randomBytes(3).toString('hex')}`;
    const result = await client().publish(request({ text: long }));
    expect((await client().reconcile(query(long)))?.remotePostId).toBe(result.remotePostId);
  });

  it('answers null when no tweet has the text', async () => {
    await client().publish(request());
    expect(await client().reconcile(query('something never posted'))).toBeNull();
  });

  it('never matches a tweet already recorded for another post', async () => {
    const req = request();
    const result = await client().publish(req);
    expect(await client().reconcile(query(req.text, { knownRemoteIds: new Set([result.remotePostId]) }))).toBeNull();
  });

  it('follows the timeline across pages, and answers absent only after the last', async () => {
    const req = request();
    const result = await client().publish(req);
    for (let i = 0; i < 150; i++) fake.recordPost({ accountId: connected.account.id, text: `filler ${i}`, mediaUrls: [], extra: {} });
    expect((await client().reconcile(query(req.text)))?.remotePostId).toBe(result.remotePostId);
    const pages = fake.requestsTo(`/2/users/${connected.account.id}/tweets`, 'GET');
    expect(pages).toHaveLength(2);
    expect(pages[1].query.get('pagination_token')).toBe('100');
    expect(await client().reconcile(query('something never posted'))).toBeNull();
  });

  it('cannot tell, rather than answer absent, when more tweets came since the attempt than it reads', async () => {
    for (let i = 0; i < 3001; i++) fake.recordPost({ accountId: connected.account.id, text: `filler ${i}`, mediaUrls: [], extra: {} });
    const err = await failure(client().reconcile(query('the post looked for')));
    // Not `unconfirmed` (never) and not null (absent: it would be sent again): checked again later.
    expect(err.code).toBe('unknown_error');
  });

  it('ignores tweets from before `since`', async () => {
    const req = request();
    await client().publish(req);
    expect(await client().reconcile(query(req.text, { since: new Date(Date.now() + 120_000) }))).toBeNull();
  });
});

describe('X text and multipart helpers', () => {
  it('weighs URLs as 23 and CJK as 2', () => {
    expect(tweetWeight(`see https://example.com/${'a'.repeat(80)}`)).toBe(4 + 23);
    expect(tweetWeight('日本')).toBe(4);
    expect(tweetText('short')).toBe('short');
    expect(tweetText('x'.repeat(400))).toBe(`${'x'.repeat(278)}…`);
  });

  it('builds a body the fake parses back', () => {
    const { body, contentType } = multipart([{ name: 'a', value: 'b' }]);
    expect(parseMultipart(body, contentType)?.map((p) => [p.name, p.data.toString()])).toEqual([['a', 'b']]);
  });
});

describe('XClient.sendReply', () => {
  const reply = (over: Partial<ReplyRequest> = {}): ReplyRequest => ({
    accessToken: connected.accessToken, account: connected.account, channel: 'comment', target: '', text: 'Thanks for asking! 🍅', replyId: 'msg_01', ...over,
  });
  const mention = () => fake.addMention({ text: '@luna_grows which variety?', authorId: '2244994945', authorUsername: 'tomato_fan' });

  it('answers a mention with a reply post naming it', async () => {
    const m = mention();
    const sent = await client().sendReply(reply({ target: m.id }));
    expect(fake.replies).toEqual([expect.objectContaining({ channel: 'comment', target: m.id, text: 'Thanks for asking! 🍅', id: sent.remoteMessageId })]);
    expect(JSON.parse(tweets()[0].body.toString())).toEqual({ text: 'Thanks for asking! 🍅', reply: { in_reply_to_tweet_id: m.id } });
    expect(fake.posts).toEqual([]);
  });

  it('sends a direct message in the one-to-one conversation and answers its event id', async () => {
    const sent = await client().sendReply(reply({ channel: 'dm', target: '2244994945', text: 'Hi there' }));
    expect(fake.replies).toEqual([expect.objectContaining({ channel: 'dm', target: '2244994945', text: 'Hi there', id: sent.remoteMessageId })]);
    const [call] = fake.requestsTo('/2/dm_conversations/with/2244994945/messages', 'POST');
    expect(JSON.parse(call.body.toString())).toEqual({ text: 'Hi there' });
    expect(call.headers.authorization).toBe(`Bearer ${connected.accessToken}`);
  });

  it('refuses a reply over 280 weighted characters (CJK weighs 2) and a DM over 10,000 before any call', async () => {
    const m = mention();
    const cjk = await failure(client().sendReply(reply({ target: m.id, text: '番'.repeat(141) })));
    expect([cjk.code, cjk.point, cjk.message]).toEqual(['content_rejected', 'before', 'X takes replies of at most 280 weighted characters; this one has 282.']);
    expect((await failure(client().sendReply(reply({ channel: 'dm', target: '2244994945', text: 'x'.repeat(10_001) })))).code).toBe('content_rejected');
    expect(fake.requests.filter((r) => r.method === 'POST')).toEqual([]);
    await client().sendReply(reply({ target: m.id, text: '番'.repeat(140) }));
    expect(fake.replies).toHaveLength(1);
  });

  it('maps a 429 to rate_limited with Retry-After and a refused token to token_expired, nothing sent', async () => {
    const m = mention();
    fake.setMode({ kind: 'rate_limit', times: 1, retryAfterSeconds: 3, on: 'reply' });
    const limited = await failure(client().sendReply(reply({ target: m.id })));
    expect([limited.code, limited.point, limited.retryAfterMs]).toEqual(['rate_limited', 'before', 3000]);
    const refused = await failure(client().sendReply(reply({ channel: 'dm', target: '2244994945', accessToken: 'at_unknown' })));
    expect([refused.code, refused.point]).toEqual(['token_expired', 'before']);
    expect(fake.replies).toEqual([]);
  });

  it('reports a 5xx after the reply was made as an unknown outcome, sent once; a reply to a post X does not show is content_rejected', async () => {
    const m = mention();
    fake.setMode({ kind: 'lose_reply', times: 1 });
    const lost = await failure(client().sendReply(reply({ target: m.id })));
    expect([lost.code, lost.point]).toEqual(['network_error', 'unknown']);
    expect(fake.repliesTo(m.id)).toHaveLength(1);
    expect(tweets()).toHaveLength(1);
    const gone = await failure(client().sendReply(reply({ target: '1790000000000000999' })));
    expect([gone.code, gone.point]).toEqual(['content_rejected', 'before']);
  });
});

describe('XClient.readComments (mentions)', () => {
  const query = (over: Partial<CommentsQuery> = {}): CommentsQuery => ({ accessToken: connected.accessToken, account: connected.account, since: null, ...over });

  it('reads mentions since `since`, page by page, with their authors and the post they answer', async () => {
    const post = fake.recordPost({ id: fake.nextTweetId(), accountId: connected.account.id, text: 'Balcony tomatoes', mediaUrls: [], extra: {} });
    fake.addMention({ text: 'old one', authorId: '11', authorUsername: 'early', createdAt: new Date(Date.now() - 3600_000) });
    const since = new Date(Date.now() - 60_000);
    for (let i = 0; i < 105; i++) fake.addMention({ text: `@luna_grows nice ${i}`, authorId: '2244994945', authorUsername: 'tomato_fan', authorName: 'Tomato Fan', inReplyToTweetId: post.id });
    const standalone = fake.addMention({ text: '@luna_grows hello', authorId: '33', authorUsername: 'new_friend' });
    let calls = 0;
    const read = await client().readComments(query({ since, beforeCall: async () => void (calls += 1) }));
    expect(read).toHaveLength(106);
    expect(calls).toBe(2);
    expect(read[0]).toEqual({ remoteMessageId: standalone.id, authorId: '33', authorName: 'new_friend', text: '@luna_grows hello', createdAt: standalone.createdAt, remotePostId: null });
    expect(read[1]).toMatchObject({ authorId: '2244994945', authorName: 'tomato_fan', text: '@luna_grows nice 104', remotePostId: post.id });
    const [first] = fake.requestsTo(`/2/users/${connected.account.id}/mentions`, 'GET');
    expect(Object.fromEntries(first.query)).toMatchObject({
      max_results: '100', start_time: new Date(Math.floor(since.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
      'tweet.fields': 'author_id,created_at,conversation_id,in_reply_to_user_id', expansions: 'author_id',
    });
  });

  it('reads the latest page only without `since`', async () => {
    for (let i = 0; i < 120; i++) fake.addMention({ text: `m${i}`, authorId: '44', authorUsername: 'many' });
    expect(await client().readComments(query())).toHaveLength(100);
    expect(fake.requestsTo(`/2/users/${connected.account.id}/mentions`, 'GET')).toHaveLength(1);
  });

  it('maps a 429 on the read to rate_limited with Retry-After and reads nothing more', async () => {
    fake.setMode({ kind: 'rate_limit', times: 1, retryAfterSeconds: 60, on: 'comments' });
    const err = await failure(client().readComments(query({ since: new Date(Date.now() - 1000) })));
    expect([err.code, err.retryAfterMs]).toEqual(['rate_limited', 60_000]);
    expect(fake.requestsTo(`/2/users/${connected.account.id}/mentions`, 'GET')).toHaveLength(1);
  });
});
