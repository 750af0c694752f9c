import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { googleError, startYouTubeFake, YOUTUBE_PATHS, type YouTubeFake } from '../../../../../test/fakes/platforms/youtube.js';
import type { CommentsQuery, PlatformClientOptions, PublishMedia, PublishRequest, ReconcileQuery, ReplyRequest } from '../../application/ports/platform-client.js';
import { consentCode, failure, fakeClientOptions, formOf, mediaAt, pkce, reconcileQueryFor } from './spec-fixtures.js';
import { YouTubeClient } from './youtube-client.js';

const CHANNEL = 'UCfakeChannel000000000001';
const VIDEO_URL = 'https://cdn.example.test/media/clip.mp4';
const REDIRECT = 'https://app.example.test/connections/youtube/callback';
const SCOPES = ['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/youtube.readonly', 'https://www.googleapis.com/auth/youtube.force-ssl'];
const BYTES = Buffer.alloc(4096, 7);
const UPLOAD = '/upload/youtube/v3/videos';
let fake: YouTubeFake;
let token: string;

beforeAll(async () => {
  fake = await startYouTubeFake();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  token = fake.issueTokens(CHANNEL, SCOPES).accessToken;
});

const client = (over: Partial<PlatformClientOptions> = {}) => new YouTubeClient(fakeClientOptions(fake, YOUTUBE_PATHS, over));

/** YouTube takes the video bytes as an upload. */
const media = (kind: PublishMedia['kind'] = 'video'): PublishMedia => mediaAt(kind, kind === 'video' ? VIDEO_URL : 'https://cdn.example.test/a.jpg', { bytes: BYTES });

function request(over: Partial<PublishRequest> = {}): PublishRequest {
  return {
    postId: 'post_01',
    accessToken: token,
    account: { id: CHANNEL, name: 'Luna Gardens' },
    contentType: 'short',
    text: 'Tomatoes at golden hour #garden',
    title: 'Tomatoes at golden hour',
    media: [media()],
    ...over,
  };
}

/** Reconcile after the default `request()` went unanswered. */
const query = (over: Partial<ReconcileQuery> = {}): ReconcileQuery => reconcileQueryFor(request(), over);

const tokenForms = () => fake.requestsTo('/token', 'POST').map(formOf);
const puts = () => fake.requestsTo(UPLOAD, 'PUT');

describe('YouTubeClient OAuth', () => {
  it('builds the Google consent URL for offline access with PKCE', () => {
    const url = new URL(client().authorizeUrl({ state: 'st_1', redirectUri: REDIRECT, codeChallenge: 'ch_abc' }));
    expect(url.origin + url.pathname).toBe(fake.url + '/o/oauth2/v2/auth');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'youtube-client',
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: SCOPES.join(' '),
      state: 'st_1',
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      code_challenge: 'ch_abc',
      code_challenge_method: 'S256',
    });
  });

  it('exchanges the code with the PKCE verifier and finds the channel', async () => {
    const { verifier, challenge } = pkce('verifier-0123456789-0123456789-0123456789-abc');
    const code = await consentCode(client().authorizeUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: challenge }));

    const connected = await client().exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: verifier });

    expect(connected.account).toEqual({ id: CHANNEL, name: 'Luna Gardens' });
    expect(connected.refreshToken).toMatch(/^rt_/);
    expect(connected.scopes).toEqual(SCOPES);
    expect(tokenForms()).toEqual([
      { code, grant_type: 'authorization_code', redirect_uri: REDIRECT, code_verifier: verifier, client_id: 'youtube-client', client_secret: 'youtube-secret' },
    ]);
    const [lookup] = fake.requestsTo('/youtube/v3/channels', 'GET');
    expect(Object.fromEntries(lookup.query)).toEqual({ part: 'snippet', mine: 'true' });
    expect(lookup.headers.authorization).toBe(`Bearer ${connected.accessToken}`);
  });

  it('refuses a wrong verifier as token_expired and an account without channel as content_rejected', async () => {
    const { challenge } = pkce('right-verifier');
    const bad = await failure(client().exchangeCode({ code: fake.issueCode(REDIRECT, challenge), redirectUri: REDIRECT, codeVerifier: 'wrong' }));
    expect(bad.code).toBe('token_expired');

    fake.hasChannel = false;
    // A consent with the scopes the look-up needs: only the missing channel can refuse it.
    const none = await failure(client().exchangeCode({ code: fake.issueCode(REDIRECT, undefined, SCOPES), redirectUri: REDIRECT }));
    expect(none.code).toBe('content_rejected');
    expect(none.message).toContain('no YouTube channel');
  });

  it('refreshes keeping the refresh token Google does not resend; a refused refresh is token_expired', async () => {
    const issued = fake.issueTokens(CHANNEL, SCOPES);
    const first = await client().refresh(issued.refreshToken!);
    expect(first.refreshToken).toBe(issued.refreshToken);
    expect(first.accessToken).not.toBe(issued.accessToken);
    const second = await client().refresh(first.refreshToken!);
    expect(fake.tokens.get(second.accessToken)?.accountId).toBe(CHANNEL);
    expect(tokenForms()[0]).toEqual({ grant_type: 'refresh_token', refresh_token: issued.refreshToken, client_id: 'youtube-client', client_secret: 'youtube-secret' });

    fake.refuseRefresh = true;
    expect((await failure(client().refresh(issued.refreshToken!))).code).toBe('token_expired');
  });

  it('revokes the refresh token at /revoke and never throws', async () => {
    const issued = fake.issueTokens(CHANNEL, SCOPES);
    await client().revoke({ accessToken: issued.accessToken, refreshToken: issued.refreshToken });
    expect(fake.revoked).toEqual([issued.refreshToken]);
    expect(fake.tokens.has(issued.accessToken)).toBe(false);
    expect(new URLSearchParams(fake.requestsTo('/revoke', 'POST')[0].body.toString()).get('token')).toBe(issued.refreshToken);

    await expect(client().revoke({ accessToken: 'at_unknown', refreshToken: null })).resolves.toBeUndefined();
  });
});

describe('YouTubeClient publish', () => {
  it.each(['video', 'reel', 'short'])('uploads a %s through a resumable session, publicly', async (contentType) => {
    const result = await client().publish(request({ contentType }));

    expect(fake.posts).toHaveLength(1);
    const post = fake.posts[0];
    expect(post).toMatchObject({ accountId: CHANNEL, title: 'Tomatoes at golden hour', text: 'Tomatoes at golden hour #garden' });
    expect(post.extra).toMatchObject({ bytes: BYTES.length, contentType: 'video/mp4', privacyStatus: 'public', categoryId: '22', madeForKids: false });
    expect(result).toEqual({ remotePostId: post.id, remoteUrl: `https://www.youtube.com/watch?v=${post.id}`, mediaUrls: post.mediaUrls });
    expect(result.mediaUrls[0]).toMatch(/^https:\/\/i\.ytimg\.test\/vi\/.+\/default\.jpg$/);

    const [open] = fake.requestsTo(UPLOAD, 'POST');
    expect(Object.fromEntries(open.query)).toEqual({ uploadType: 'resumable', part: 'snippet,status' });
    expect(open.headers).toMatchObject({ authorization: `Bearer ${token}`, 'x-upload-content-type': 'video/mp4', 'x-upload-content-length': String(BYTES.length) });
    expect(JSON.parse(open.body.toString())).toEqual({
      snippet: { title: 'Tomatoes at golden hour', description: 'Tomatoes at golden hour #garden', categoryId: '22' },
      status: { privacyStatus: 'public', selfDeclaredMadeForKids: false },
    });
    expect(puts()).toHaveLength(1);
    expect(puts()[0].headers).toMatchObject({ authorization: `Bearer ${token}`, 'content-type': 'video/mp4' });
    expect(puts()[0].body.equals(BYTES)).toBe(true);
  });

  it('cleans the title and description the way YouTube requires', async () => {
    const title = `<b>Tomatoes</b> ${'x'.repeat(120)}`;
    await client().publish(request({ title, text: 'Big <3 for tomatoes' }));
    expect(fake.posts[0].title).toBe(`bTomatoes/b ${'x'.repeat(88)}`);
    expect(fake.posts[0].text).toBe('Big 3 for tomatoes');

    fake.reset();
    await client().publish(request({ title: '  ', text: 'First line\nsecond line' }));
    expect(fake.posts[0].title).toBe('First line');
  });

  it.each([
    ['single', [media('image')]],
    ['carousel', [media(), media()]],
    ['short', [media('image')]],
    ['video', []],
    ['story', [media()]],
  ])('rejects a %s with these media before any call', async (contentType, list) => {
    const err = await failure(client().publish(request({ contentType, media: list })));
    expect(err).toMatchObject({ code: 'content_rejected', point: 'before' });
    expect(fake.requests).toHaveLength(0);
  });

  it('answers token_expired on a 401', async () => {
    fake.expireTokens();
    expect((await failure(client().publish(request()))).code).toBe('token_expired');
    expect(puts()).toHaveLength(0);
  });

  it('answers rate_limited before, with Retry-After, when the upload is throttled', async () => {
    fake.setMode({ kind: 'rate_limit', times: 1, retryAfterSeconds: 9 });
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'rate_limited', point: 'before', retryAfterMs: 9_000 });
    expect(puts()).toHaveLength(1);
    expect(fake.posts).toHaveLength(0);
  });

  it('reads an exhausted quota (403 quotaExceeded) as rate_limited', async () => {
    const body = googleError(403, 'quotaExceeded', 'The request cannot be completed because you have exceeded your quota.');
    fake.setMode({ kind: 'fail', status: 403, times: 1, body, on: 'prepare' });
    expect(await failure(client().publish(request()))).toMatchObject({ code: 'rate_limited', point: 'before' });
    expect(puts()).toHaveLength(0);
  });

  it('fails before when the session cannot be opened', async () => {
    fake.setMode({ kind: 'fail', status: 503, times: 3, on: 'prepare' });
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'network_error', point: 'before' });
    expect(fake.requestsTo(UPLOAD, 'POST')).toHaveLength(3);
    expect(puts()).toHaveLength(0);
  });

  it('asks the session after a 500 and fails before when it says the upload is incomplete (308)', async () => {
    fake.setMode({ kind: 'fail', status: 500, times: 1 });
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'network_error', point: 'before' });
    expect(puts()).toHaveLength(2);
    expect(puts()[1].headers['content-range']).toBe(`bytes */${BYTES.length}`);
    expect(puts()[1].body).toHaveLength(0);
    expect(fake.posts).toHaveLength(0);
  });

  it('leaves the outcome unknown when neither the upload nor the status query is answered', async () => {
    // The upload is sent once; the status query (safe to repeat) is retried twice.
    fake.setMode({ kind: 'fail', status: 500, times: 4 });
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'network_error', point: 'unknown' });
    expect(puts()).toHaveLength(4);
    expect(puts()[3].headers['content-range']).toBe(`bytes */${BYTES.length}`);
  });

  it('recovers the video from the session when the upload answer is lost', async () => {
    fake.setMode({ kind: 'lose_reply', times: 1 });
    const result = await client().publish(request());
    expect(fake.posts).toHaveLength(1);
    expect(result.remotePostId).toBe(fake.posts[0].id);
    expect(puts()).toHaveLength(2);
  });

  it('leaves the outcome unknown when the upload hangs', async () => {
    fake.setMode({ kind: 'hang' });
    const err = await failure(client({ timeoutMs: 300 }).publish(request()));
    expect(err).toMatchObject({ code: 'network_error', point: 'unknown' });
  });

  it('reports a rejected upload as content_rejected', async () => {
    fake.uploadStatus = 'rejected';
    const err = await failure(client().publish(request()));
    expect(err).toMatchObject({ code: 'content_rejected', point: 'before' });
    expect(err.message).toContain('duplicate');
    expect(fake.posts).toHaveLength(0);
  });

  it('answers a repeated full upload to a completed session with the same video (fake)', async () => {
    await client().publish(request());
    const session = [...fake.sessions.values()][0];
    const res = await fetch(`${fake.url}${UPLOAD}?upload_id=${session.id}`, { method: 'PUT', headers: { Authorization: `Bearer ${token}` }, body: BYTES });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe(fake.posts[0].id);
    expect(fake.posts).toHaveLength(1);
  });
});

describe('YouTubeClient reconcile', () => {
  it('finds the video by title and description among the recent uploads', async () => {
    const text = `Don't miss the tomatoes & basil ${'la '.repeat(80)}#garden`;
    const published = await client().publish(request({ title: "Tomatoes & basil: don't wait", text }));
    const found = await client().reconcile(query({ title: "Tomatoes & basil: don't wait", text }));
    expect(found).toEqual(published);
    const [search] = fake.requestsTo('/youtube/v3/search', 'GET');
    expect(Object.fromEntries(search.query)).toEqual({ part: 'snippet', forMine: 'true', type: 'video', order: 'date', maxResults: '50' });
    expect(search.headers.authorization).toBe(`Bearer ${token}`);
  });

  it('finds nothing for another text, an older video or a known id', async () => {
    const published = await client().publish(request());
    expect(await client().reconcile(query({ text: 'Something else entirely' }))).toBeNull();
    expect(await client().reconcile(query({ title: 'Another title' }))).toBeNull();
    expect(await client().reconcile(query({ since: new Date(Date.now() + 120_000) }))).toBeNull();
    expect(await client().reconcile(query({ knownRemoteIds: new Set([published.remotePostId]) }))).toBeNull();
    expect(await client().reconcile(query({ since: new Date(Date.now() + 30_000) }))).toEqual(published);
  });
});

describe('YouTubeClient.sendReply', () => {
  const reply = (over: Partial<ReplyRequest> = {}): ReplyRequest => ({
    accessToken: token, account: { id: CHANNEL, name: 'Luna Gardens' }, channel: 'comment', target: '', text: 'Thanks for watching! <3', replyId: 'msg_01', ...over,
  });
  const comment = () => fake.addComment({ videoId: 'vid00000001', authorChannelId: 'UCviewer0000000000000001', authorName: 'Tomato Fan', text: 'Which variety?' });

  it('answers a top-level comment with comments.insert (part=snippet, parentId and textOriginal)', async () => {
    const c = comment();
    const sent = await client().sendReply(reply({ target: c.id }));
    expect(fake.replies).toEqual([expect.objectContaining({ channel: 'comment', target: c.id, text: 'Thanks for watching! <3', id: sent.remoteMessageId, accountId: CHANNEL })]);
    const [call] = fake.requestsTo('/youtube/v3/comments', 'POST');
    expect(call.query.get('part')).toBe('snippet');
    expect(JSON.parse(call.body.toString())).toEqual({ snippet: { parentId: c.id, textOriginal: 'Thanks for watching! <3' } });
  });

  it('refuses a direct message (YouTube has none) and a reply over 10,000 characters before any call', async () => {
    const c = comment();
    const dm = await failure(client().sendReply(reply({ channel: 'dm', target: 'UCviewer0000000000000001' })));
    expect([dm.code, dm.point, dm.message]).toEqual(['content_rejected', 'before', 'YouTube has no direct messages to reply in.']);
    expect((await failure(client().sendReply(reply({ target: c.id, text: 'y'.repeat(10_001) })))).code).toBe('content_rejected');
    expect(fake.requestsTo('/youtube/v3/comments', 'POST')).toEqual([]);
  });

  it('maps a 429 to rate_limited, quotaExceeded to rate_limited, and a refused token to token_expired, nothing sent', async () => {
    const c = comment();
    fake.setMode({ kind: 'rate_limit', times: 1, retryAfterSeconds: 5, on: 'reply' });
    const limited = await failure(client().sendReply(reply({ target: c.id })));
    expect([limited.code, limited.point, limited.retryAfterMs]).toEqual(['rate_limited', 'before', 5000]);
    fake.setMode({ kind: 'fail', status: 403, times: 1, on: 'reply', body: googleError(403, 'quotaExceeded', 'The request cannot be completed because you have exceeded your quota.') });
    expect((await failure(client().sendReply(reply({ target: c.id })))).code).toBe('rate_limited');
    const refused = await failure(client().sendReply(reply({ target: c.id, accessToken: 'at_revoked' })));
    expect([refused.code, refused.point]).toEqual(['token_expired', 'before']);
    expect(fake.replies).toEqual([]);
  });

  it('reports a 5xx after the reply was made as an unknown outcome, sent once; an unknown parent is content_rejected', async () => {
    const c = comment();
    fake.setMode({ kind: 'lose_reply', times: 1 });
    const lost = await failure(client().sendReply(reply({ target: c.id })));
    expect([lost.code, lost.point]).toEqual(['network_error', 'unknown']);
    expect(fake.repliesTo(c.id)).toHaveLength(1);
    expect(fake.requestsTo('/youtube/v3/comments', 'POST')).toHaveLength(1);
    const gone = await failure(client().sendReply(reply({ target: 'UgzUnknownComment' })));
    expect([gone.code, gone.point]).toEqual(['content_rejected', 'before']);
    expect(gone.message).toContain('commentNotFound');
  });
});

describe('YouTubeClient.readComments (commentThreads)', () => {
  const query = (over: Partial<CommentsQuery> = {}): CommentsQuery => ({ accessToken: token, account: { id: CHANNEL, name: 'Luna Gardens' }, since: null, ...over });
  const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);

  it('reads the channel’s comments newest first, paging until one is not newer than `since`', async () => {
    fake.addComment({ videoId: 'vidOld', authorChannelId: 'UCold', authorName: 'Old', text: 'long ago', publishedAt: at(120) });
    for (let i = 0; i < 150; i++) fake.addComment({ videoId: 'vid1', authorChannelId: `UCviewer${i}`, authorName: `Viewer ${i}`, text: `comment <${i}> & more`, publishedAt: at(50 - i * 0.1) });
    fake.addComment({ videoId: 'vidOther', authorChannelId: 'UCx', authorName: 'X', text: 'elsewhere', channelId: 'UCanotherChannel' });
    let calls = 0;
    const read = await client().readComments(query({ since: at(60), beforeCall: async () => void (calls += 1) }));
    expect(read).toHaveLength(150);
    expect(calls).toBe(2);
    expect(read[0]).toEqual({ remoteMessageId: fake.comments[150].id, authorId: 'UCviewer149', authorName: 'Viewer 149', text: 'comment <149> & more', createdAt: fake.comments[150].publishedAt, remotePostId: 'vid1' });
    const [first, second] = fake.requestsTo('/youtube/v3/commentThreads', 'GET');
    expect(Object.fromEntries(first.query)).toEqual({ part: 'snippet', allThreadsRelatedToChannelId: CHANNEL, order: 'time', maxResults: '100', textFormat: 'plainText' });
    expect(second.query.get('pageToken')).toBeTruthy();
  });

  it('stops at the first page without `since`, and reads nothing older than `since`', async () => {
    for (let i = 0; i < 130; i++) fake.addComment({ videoId: 'vid1', authorChannelId: 'UCv', authorName: 'V', text: `c${i}`, publishedAt: at(200 - i) });
    expect(await client().readComments(query())).toHaveLength(100);
    expect(await client().readComments(query({ since: at(75) }))).toHaveLength(4);
  });

  it('maps quotaExceeded on the read to rate_limited', async () => {
    fake.setMode({ kind: 'fail', status: 403, times: 1, on: 'comments', body: googleError(403, 'quotaExceeded', 'The request cannot be completed because you have exceeded your quota.') });
    expect((await failure(client().readComments(query()))).code).toBe('rate_limited');
  });
});
