import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startTikTokFake, TIKTOK_PATHS, type TikTokFake } from '../../../../../test/fakes/platforms/tiktok.js';
import type { PlatformClientOptions, PublishMedia, PublishRequest } from '../../application/ports/platform-client.js';
import { consentCode, failure, fakeClientOptions, formOf, mediaAt, pkce, reconcileQueryFor } from './spec-fixtures.js';
import { TikTokClient } from './tiktok-client.js';

const ACCOUNT = '-000fakeOpenId';
const VIDEO_URL = 'https://cdn.example.test/media/clip.mp4';
const REDIRECT = 'https://app.example.test/connections/tiktok/callback';
let fake: TikTokFake;
let token: string;

beforeAll(async () => {
  fake = await startTikTokFake();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  token = fake.issueTokens(ACCOUNT, ['user.info.basic', 'video.publish']).accessToken;
});

const client = (over: Partial<PlatformClientOptions> = {}) => new TikTokClient(fakeClientOptions(fake, TIKTOK_PATHS, over));

/** TikTok pulls the video from its URL. */
const media = (kind: PublishMedia['kind'] = 'video', url = VIDEO_URL): PublishMedia => mediaAt(kind, url);

function request(over: Partial<PublishRequest> = {}): PublishRequest {
  return {
    postId: 'post_01',
    accessToken: token,
    account: { id: ACCOUNT, name: 'Luna Gardens' },
    contentType: 'reel',
    text: 'Tomatoes at golden hour #garden',
    title: 'Tomatoes',
    media: [media()],
    ...over,
  };
}

const bodyOf = (path: string) => fake.requestsTo(path, 'POST').map((r) => JSON.parse(r.body.toString()));
const INIT = '/v2/post/publish/video/init/';
const STATUS = '/v2/post/publish/status/fetch/';
const CREATOR = '/v2/post/publish/creator_info/query/';

describe('TikTokClient OAuth', () => {
  it('builds the consent URL with client_key, comma-separated scopes and PKCE', () => {
    const url = new URL(client().authorizeUrl({ state: 'st_1', redirectUri: REDIRECT, codeChallenge: 'ch_abc' }));
    expect(url.origin + url.pathname).toBe(fake.url + '/v2/auth/authorize/');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_key: 'tiktok-client',
      scope: 'user.info.basic,user.info.stats,video.list,video.publish',
      response_type: 'code',
      redirect_uri: REDIRECT,
      state: 'st_1',
      code_challenge: 'ch_abc',
      code_challenge_method: 'S256',
    });
  });

  it('exchanges the code with the PKCE verifier and looks up the account', async () => {
    const { verifier, challenge } = pkce('verifier-0123456789-0123456789-0123456789-abc');
    const code = await consentCode(client().authorizeUrl({ state: 'st_2', redirectUri: REDIRECT, codeChallenge: challenge }));

    const connected = await client().exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: verifier });

    expect(connected.account).toEqual({ id: ACCOUNT, name: 'Luna Gardens' });
    expect(connected.accessToken).toMatch(/^at_/);
    expect(connected.refreshToken).toMatch(/^rt_/);
    expect(connected.scopes).toEqual(['user.info.basic', 'user.info.stats', 'video.list', 'video.publish']);
    expect(connected.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 86_000_000);
    expect(formOf(fake.requestsTo('/v2/oauth/token/', 'POST')[0])).toEqual({
      client_key: 'tiktok-client',
      client_secret: 'tiktok-secret',
      code,
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    const [info] = fake.requestsTo('/v2/user/info/', 'GET');
    expect(info.query.get('fields')).toBe('open_id,display_name');
    expect(info.headers.authorization).toBe(`Bearer ${connected.accessToken}`);
  });

  it('turns a grant refused in a 200 answer (wrong verifier) into token_expired', async () => {
    const code = fake.issueCode(REDIRECT, pkce('right-verifier').challenge);
    const err = await failure(client().exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: 'wrong-verifier' }));
    expect(err.code).toBe('token_expired');
    expect(err.message).toContain('invalid_grant');
    expect(fake.requestsTo('/v2/user/info/')).toHaveLength(0);
  });

  it('refreshes with the refresh token, and a refused refresh is token_expired', async () => {
    const issued = fake.issueTokens(ACCOUNT, ['user.info.basic', 'video.publish']);
    const tokens = await client().refresh(issued.refreshToken!);
    expect(tokens.accessToken).not.toBe(issued.accessToken);
    expect(fake.tokens.get(tokens.accessToken)?.accountId).toBe(ACCOUNT);
    expect(tokens.refreshToken).toMatch(/^rt_/);
    const form = new URLSearchParams(fake.requestsTo('/v2/oauth/token/', 'POST')[0].body.toString());
    expect(form.get('grant_type')).toBe('refresh_token');
    expect(form.get('refresh_token')).toBe(issued.refreshToken);
    expect(form.get('client_key')).toBe('tiktok-client');

    fake.refuseRefresh = true;
    const err = await failure(client().refresh(tokens.refreshToken!));
    expect(err.code).toBe('token_expired');
  });

  it('revokes the access token and never throws', async () => {
    await client().revoke({ accessToken: token, refreshToken: null });
    expect(fake.revoked).toEqual([token]);
    expect(fake.tokens.has(token)).toBe(false);
    expect(formOf(fake.requestsTo('/v2/oauth/revoke/', 'POST')[0])).toEqual({ client_key: 'tiktok-client', client_secret: 'tiktok-secret', token });

    await expect(client({ clientSecret: 'wrong' }).revoke({ accessToken: 'at_x', refreshToken: null })).resolves.toBeUndefined();
  });

});

describe('TikTokClient reconcile', () => {
  /** An attempt TikTok accepted but had not finished when we stopped waiting: its failure names the publish id. */
  const unfinished = async () => {
    fake.pollsToComplete = 1_000_000;
    const req = request();
    const err = await failure(client({ pollTimeoutMs: 60 }).publish(req));
    expect(err).toMatchObject({ code: 'network_error', point: 'unknown' });
    expect(err.handle).toMatch(/^v_pub_url~v2\./);
    return { req, handle: err.handle! };
  };

  it('asks about the attempt by its publish id: posted meanwhile → the post', async () => {
    const { req, handle } = await unfinished();
    fake.pollsToComplete = 1;
    const found = await client().reconcile(reconcileQueryFor(req, { handle }));
    expect(found?.remotePostId).toMatch(/\S/);
    expect(found?.remoteUrl).toContain('https://www.tiktok.com/@');
    expect(fake.requestsTo(INIT)).toHaveLength(1);
  });

  it('answers null when TikTok refused the attempt (nothing was posted)', async () => {
    fake.failReason = 'file_format_check_failed';
    const { req, handle } = await unfinished();
    fake.pollsToComplete = 1;
    expect(await client().reconcile(reconcileQueryFor(req, { handle }))).toBeNull();
  });

  it('cannot tell without a publish id (TikTok lists no posts): unconfirmed', async () => {
    const err = await failure(client().reconcile(reconcileQueryFor(request())));
    expect(err.code).toBe('unconfirmed');
    expect(fake.requestsTo(STATUS)).toHaveLength(0);
  });
});

describe('TikTokClient publish', () => {
  it.each(['video', 'reel', 'short'])('posts a %s pulled from its URL, publicly, and waits for PUBLISH_COMPLETE', async (contentType) => {
    const result = await client().publish(request({ contentType }));

    expect(fake.posts).toHaveLength(1);
    const post = fake.posts[0];
    expect(post).toMatchObject({ accountId: ACCOUNT, text: 'Tomatoes at golden hour #garden', mediaUrls: [VIDEO_URL] });
    expect(result).toEqual({
      remotePostId: post.id,
      remoteUrl: `https://www.tiktok.com/@luna.gardens/video/${post.id}`,
      mediaUrls: [VIDEO_URL],
    });
    expect(bodyOf(CREATOR)).toEqual([{}]);
    expect(bodyOf(INIT)).toEqual([
      {
        post_info: { title: 'Tomatoes at golden hour #garden', privacy_level: 'PUBLIC_TO_EVERYONE', disable_comment: false },
        source_info: { source: 'PULL_FROM_URL', video_url: VIDEO_URL },
      },
    ]);
    const publishId = post.extra.publishId;
    expect(bodyOf(STATUS)).toEqual([{ publish_id: publishId }, { publish_id: publishId }]);
    for (const r of fake.requests.filter((q) => q.path.startsWith('/v2/post/'))) expect(r.headers.authorization).toBe(`Bearer ${token}`);
  });

  it('uses the first privacy level offered when public posting is not, and cuts the caption to 2200', async () => {
    fake.privacyLevels = ['SELF_ONLY', 'FOLLOWER_OF_CREATOR'];
    const text = 'a'.repeat(2199) + '😀' + 'tail';
    await client().publish(request({ text }));
    const [init] = bodyOf(INIT);
    expect(init.post_info.privacy_level).toBe('SELF_ONLY');
    expect(init.post_info.title).toBe('a'.repeat(2199));
  });

  it.each([
    ['single', [media('image', 'https://cdn.example.test/a.jpg')]],
    ['carousel', [media(), media()]],
    ['reel', [media('image', 'https://cdn.example.test/a.jpg')]],
    ['reel', []],
    ['story', [media()]],
  ])('rejects a %s with these media before any call', async (contentType, list) => {
    const err = await failure(client().publish(request({ contentType, media: list })));
    expect(err.code).toBe('content_rejected');
    expect(err.point).toBe('before');
    expect(fake.requests).toHaveLength(0);
  });

  it('answers token_expired on a 401', async () => {
    fake.expireTokens();
    const err = await failure(client().publish(request()));
    expect(err.code).toBe('token_expired');
    expect(fake.requestsTo(INIT)).toHaveLength(0);
  });

  it('answers rate_limited before, with Retry-After, when the post init is throttled', async () => {
    fake.setMode({ kind: 'rate_limit', times: 1, retryAfterSeconds: 7 });
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'rate_limited', point: 'before', retryAfterMs: 7_000 });
    expect(fake.requestsTo(INIT)).toHaveLength(1);
    expect(fake.posts).toHaveLength(0);
  });

  it('reads TikTok error codes: spam_risk_too_many_posts is rate_limited, a 200 with url_ownership_unverified is content_rejected', async () => {
    const envelope = (code: string) => ({ data: {}, error: { code, message: 'refused', log_id: 'l' } });
    fake.setMode({ kind: 'fail', status: 403, times: 1, body: envelope('spam_risk_too_many_posts') });
    expect(await failure(client().publish(request()))).toMatchObject({ code: 'rate_limited', point: 'before' });
    fake.setMode({ kind: 'fail', status: 200, times: 1, body: envelope('url_ownership_unverified') });
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'content_rejected', point: 'before' });
    expect(err.message).toContain('url_ownership_unverified');
    expect(fake.requestsTo(INIT)).toHaveLength(2);
  });

  it('leaves the outcome unknown on a 500 to the init, sent once', async () => {
    fake.setMode({ kind: 'fail', status: 500, times: 5 });
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'network_error', point: 'unknown' });
    expect(fake.requestsTo(INIT)).toHaveLength(1);
  });

  it('leaves the outcome unknown when the post was made but the answer lost', async () => {
    fake.setMode({ kind: 'lose_reply', times: 1 });
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'network_error', point: 'unknown' });
    expect(fake.posts).toHaveLength(1);
    expect(fake.requestsTo(STATUS)).toHaveLength(0);
  });

  it('leaves the outcome unknown when the init hangs', async () => {
    fake.setMode({ kind: 'hang' });
    const err = await failure(client({ timeoutMs: 300 }).publish(request()));
    expect(err).toMatchObject({ code: 'network_error', point: 'unknown' });
    expect(fake.requestsTo(INIT)).toHaveLength(1);
  });

  it('fails before the post when the creator info cannot be had', async () => {
    fake.setMode({ kind: 'fail', status: 503, times: 3, on: 'prepare' });
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'network_error', point: 'before' });
    expect(fake.requestsTo(CREATOR)).toHaveLength(3);
    expect(fake.requestsTo(INIT)).toHaveLength(0);
  });

  it('reports a FAILED processing as content_rejected', async () => {
    fake.failReason = 'file_format_check_failed';
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'content_rejected', point: 'before' });
    expect(err.message).toContain('file_format_check_failed');
    expect(fake.posts).toHaveLength(0);
  });

  it('leaves the outcome unknown when processing outlasts the poll budget', async () => {
    fake.pollsToComplete = 1_000_000;
    const err = await failure(client({ pollTimeoutMs: 60 }).publish(request()));
    expect(err).toMatchObject({ code: 'network_error', point: 'unknown' });
    expect(err.message).toContain('PROCESSING_DOWNLOAD');
    expect(fake.requestsTo(STATUS).length).toBeGreaterThan(1);
  });

  it('leaves the outcome unknown when the status polls fail after the init', async () => {
    fake.setMode({ kind: 'fail', status: 502, times: 3, on: 'read' });
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'network_error', point: 'unknown' });
    expect(fake.posts).toHaveLength(1);
  });

  it('keeps the publish id and no URL when the post id is a number JSON cannot hold', async () => {
    fake.postIdFormat = 'number';
    const result = await client().publish(request());
    expect(result.remotePostId).toBe(fake.posts[0].extra.publishId);
    expect(result.remoteUrl).toBeNull();
  });
});
