import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { contentType, emptyBody, to, tokenInQuery, withRequestBug } from '../../../../../test/fakes/adapter-bugs.js';
import { INSTAGRAM_PATHS, startInstagramFake, type InstagramFake } from '../../../../../test/fakes/platforms/instagram.js';
import { PINTEREST_PATHS, startPinterestFake, type PinterestFake } from '../../../../../test/fakes/platforms/pinterest.js';
import { startTikTokFake, TIKTOK_PATHS, type TikTokFake } from '../../../../../test/fakes/platforms/tiktok.js';
import { startXFake, X_PATHS, type XFake } from '../../../../../test/fakes/platforms/x.js';
import { startYouTubeFake, YOUTUBE_PATHS, type YouTubeFake } from '../../../../../test/fakes/platforms/youtube.js';
import type { ConnectedAccount, PlatformClient, PublishRequest } from '../../application/ports/platform-client.js';
import { InstagramClient } from './instagram-client.js';
import { PinterestClient } from './pinterest-client.js';
import { consentCode, failure, fakeClientOptions, mediaAt, pkce } from './spec-fixtures.js';
import { TikTokClient } from './tiktok-client.js';
import { XClient } from './x-client.js';
import { YouTubeClient } from './youtube-client.js';

/**
 * The platform fakes refuse what the platforms refuse, so an adapter bug cannot stay green: each
 * case plants one bug in a real adapter's outgoing request (see test/fakes/adapter-bugs.ts) or
 * consents with a scope missing, and the fake must refuse where it used to accept. The same
 * adapter without the bug publishes, so the bug is the only difference.
 */
const REDIRECT = 'https://app.example.test/callback';

/** Consents through the fake's authorize page with the adapter's URL changed by `edit`, then exchanges the code. */
async function connectWith(client: PlatformClient, edit: (q: URLSearchParams) => void = () => undefined): Promise<ConnectedAccount> {
  const { verifier, challenge } = pkce();
  const url = new URL(client.authorizeUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: challenge }));
  edit(url.searchParams);
  const code = await consentCode(url.toString());
  return client.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: client.supportsPkce ? verifier : undefined });
}

const withoutScope = (scope: string, separator: ' ' | ',') => (q: URLSearchParams) =>
  q.set('scope', q.get('scope')!.split(separator).filter((s) => s !== scope).join(separator));

function postOf(connected: ConnectedAccount, over: Partial<PublishRequest>): PublishRequest {
  const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  return { postId: 'post_1', accessToken: connected.accessToken, account: connected.account, contentType: 'single', text: `Balcony tomatoes ${stamp}`, title: 'Tomatoes', media: [], ...over };
}

const photo = mediaAt('image', 'https://cdn.example.test/p/1.jpg', { bytes: Buffer.from(`jpeg-bytes-${'x'.repeat(64)}`) });
const clip = mediaAt('video', 'https://cdn.example.test/v/1.mp4', { bytes: Buffer.alloc(4096, 7) });

describe('X fake', () => {
  let fake: XFake;
  const client = () => new XClient(fakeClientOptions(fake, X_PATHS));
  beforeAll(async () => {
    fake = await startXFake();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());
  const post = (c: ConnectedAccount) => postOf(c, { media: [photo] });

  it('refuses the token in the query string, a tweet body not sent as JSON, and an empty one', async () => {
    const connected = await connectWith(client());
    await expect(client().publish(post(connected))).resolves.toMatchObject({ remotePostId: expect.any(String) });
    const tweets = to('/2/tweets', 'POST');
    expect((await failure(withRequestBug(tweets, tokenInQuery, () => client().publish(post(connected))))).code).toBe('token_expired');
    expect((await failure(withRequestBug(tweets, contentType('text/plain'), () => client().publish(post(connected))))).message).toContain('application/json');
    expect((await failure(withRequestBug(tweets, emptyBody, () => client().publish(post(connected))))).message).toContain('empty');
    expect(fake.posts).toHaveLength(1);
  });

  it('issues a refresh token only to a consent with offline.access', async () => {
    expect((await connectWith(client())).refreshToken).toMatch(/^rt_/);
    expect((await connectWith(client(), withoutScope('offline.access', ' '))).refreshToken).toBeNull();
  });

  it('refuses to post for a token without tweet.write, and to upload without media.write', async () => {
    const noWrite = await connectWith(client(), withoutScope('tweet.write', ' '));
    expect((await failure(client().publish(post(noWrite)))).message).toContain('403');
    const noMedia = await connectWith(client(), withoutScope('media.write', ' '));
    expect((await failure(client().publish(post(noMedia)))).message).toContain('403');
    expect(fake.posts).toHaveLength(0);
  });

  it('refuses a direct message for a token without dm.write', async () => {
    const dm = (c: ConnectedAccount) => client().sendReply({ accessToken: c.accessToken, account: c.account, channel: 'dm', target: '2244994945', text: 'hi', replyId: 'msg_1' });
    await expect(dm(await connectWith(client()))).resolves.toMatchObject({ remoteMessageId: expect.any(String) });
    expect((await failure(dm(await connectWith(client(), withoutScope('dm.write', ' '))))).message).toContain('403');
    expect(fake.replies).toHaveLength(1);
  });
});

describe('TikTok fake', () => {
  let fake: TikTokFake;
  const client = () => new TikTokClient(fakeClientOptions(fake, TIKTOK_PATHS));
  beforeAll(async () => {
    fake = await startTikTokFake();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());
  const post = (c: ConnectedAccount) => postOf(c, { contentType: 'reel', media: [clip] });

  it('refuses the token in the query string and an init body not sent as JSON', async () => {
    const connected = await connectWith(client());
    await expect(client().publish(post(connected))).resolves.toMatchObject({ remotePostId: expect.any(String) });
    const init = to('/v2/post/publish/video/init/', 'POST');
    expect((await failure(withRequestBug(init, tokenInQuery, () => client().publish(post(connected))))).code).toBe('token_expired');
    expect((await failure(withRequestBug(init, contentType('application/x-www-form-urlencoded'), () => client().publish(post(connected))))).message).toContain('application/json');
    expect(fake.posts).toHaveLength(1);
  });

  it('refuses Direct Post for a token without video.publish', async () => {
    const connected = await connectWith(client(), withoutScope('video.publish', ','));
    expect((await failure(client().publish(post(connected)))).message).toContain('scope_not_authorized');
    expect(fake.posts).toHaveLength(0);
  });
});

describe('YouTube fake', () => {
  let fake: YouTubeFake;
  const client = () => new YouTubeClient(fakeClientOptions(fake, YOUTUBE_PATHS));
  const upload = 'https://www.googleapis.com/auth/youtube.upload';
  const forceSsl = 'https://www.googleapis.com/auth/youtube.force-ssl';
  beforeAll(async () => {
    fake = await startYouTubeFake();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());
  const post = (c: ConnectedAccount) => postOf(c, { contentType: 'short', media: [clip] });

  it('refuses the token in the query string and upload metadata not sent as JSON', async () => {
    const connected = await connectWith(client());
    await expect(client().publish(post(connected))).resolves.toMatchObject({ remotePostId: expect.any(String) });
    const session = to('/upload/youtube/v3/videos', 'POST');
    expect((await failure(withRequestBug(session, tokenInQuery, () => client().publish(post(connected))))).code).toBe('token_expired');
    expect((await failure(withRequestBug(session, contentType('text/plain'), () => client().publish(post(connected))))).message).toContain('parseError');
    expect(fake.posts).toHaveLength(1);
  });

  it('sends a refresh token only when the consent asked for offline access', async () => {
    expect((await connectWith(client())).refreshToken).toMatch(/^rt_/);
    expect((await connectWith(client(), (q) => q.delete('access_type'))).refreshToken).toBeNull();
  });

  it('refuses videos.insert for a token without an upload scope', async () => {
    // youtube.force-ssl (asked for comments) also lets a token upload: both must be missing.
    const connected = await connectWith(client(), (q) => [withoutScope(upload, ' '), withoutScope(forceSsl, ' ')].forEach((drop) => drop(q)));
    expect((await failure(client().publish(post(connected)))).message).toContain('insufficientPermissions');
    expect(fake.posts).toHaveLength(0);
  });

  it('refuses comments.insert and commentThreads.list for a token without youtube.force-ssl', async () => {
    const connected = await connectWith(client(), withoutScope(forceSsl, ' '));
    const comment = fake.addComment({ videoId: 'vid1', authorChannelId: 'UCv', authorName: 'V', text: 'hi' });
    const reply = client().sendReply({ accessToken: connected.accessToken, account: connected.account, channel: 'comment', target: comment.id, text: 'thanks', replyId: 'msg_1' });
    expect((await failure(reply)).message).toContain('insufficientPermissions');
    expect((await failure(client().readComments({ accessToken: connected.accessToken, account: connected.account, since: null })))).toMatchObject({ code: 'unknown_error' });
    expect(fake.replies).toHaveLength(0);
  });
});

describe('Pinterest fake', () => {
  let fake: PinterestFake;
  const client = () => new PinterestClient(fakeClientOptions(fake, PINTEREST_PATHS));
  beforeAll(async () => {
    fake = await startPinterestFake();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());
  const post = (c: ConnectedAccount) => postOf(c, { media: [photo], boardId: '1001' });

  it('refuses the token in the query string and a Pin body not sent as JSON', async () => {
    const connected = await connectWith(client());
    await expect(client().publish(post(connected))).resolves.toMatchObject({ remotePostId: expect.any(String) });
    const pins = to('/v5/pins', 'POST');
    expect((await failure(withRequestBug(pins, tokenInQuery, () => client().publish(post(connected))))).code).toBe('token_expired');
    expect((await failure(withRequestBug(pins, contentType('text/plain'), () => client().publish(post(connected))))).message).toContain('application/json');
    expect(fake.posts).toHaveLength(1);
  });

  it('refuses to create a Pin for a token without pins:write', async () => {
    const connected = await connectWith(client(), withoutScope('pins:write', ','));
    expect((await failure(client().publish(post(connected)))).code).toBe('token_expired');
    expect(fake.posts).toHaveLength(0);
  });
});

describe('Instagram fake', () => {
  let fake: InstagramFake;
  const client = () => new InstagramClient(fakeClientOptions(fake, INSTAGRAM_PATHS));
  beforeAll(async () => {
    fake = await startInstagramFake();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('refuses media containers for a login without instagram_content_publish', async () => {
    const connected = await connectWith(client());
    await expect(client().publish(postOf(connected, { media: [photo] }))).resolves.toMatchObject({ remotePostId: expect.any(String) });
    const refused = await connectWith(client(), withoutScope('instagram_content_publish', ','));
    expect((await failure(client().publish(postOf(refused, { media: [photo] })))).message).toContain('(#10)');
    expect(fake.posts).toHaveLength(1);
  });

  it('refuses comment replies without instagram_manage_comments and messages without instagram_manage_messages', async () => {
    const comment = fake.receiveComment({ mediaId: '17900000000000001', text: 'nice' });
    fake.receiveMessage({ fromId: '6123', text: 'hi' });
    const send = (c: ConnectedAccount, channel: 'comment' | 'dm') =>
      client().sendReply({ accessToken: c.accessToken, account: c.account, channel, target: channel === 'dm' ? '6123' : comment.id, text: 'thanks', replyId: 'msg_1' });
    expect((await failure(send(await connectWith(client(), withoutScope('instagram_manage_comments', ',')), 'comment'))).message).toContain('(#10)');
    expect((await failure(send(await connectWith(client(), withoutScope('instagram_manage_messages', ',')), 'dm'))).message).toContain('(#10)');
    expect(fake.replies).toHaveLength(0);
  });
});
