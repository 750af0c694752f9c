import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startYouTubeFake, YOUTUBE_PATHS, type YouTubeFake } from '../../../../../test/fakes/platforms/youtube.js';
import type { MetricsQuery } from '../../application/ports/platform-client.js';
import { failure, fakeClientOptions } from './spec-fixtures.js';
import { YouTubeClient } from './youtube-client.js';

let fake: YouTubeFake;
const client = () => new YouTubeClient(fakeClientOptions(fake, YOUTUBE_PATHS));
const query = (remotePostIds: string[], over: Partial<MetricsQuery> = {}): MetricsQuery => ({
  accessToken: fake.issueTokens('UC_luna', ['https://www.googleapis.com/auth/youtube.readonly']).accessToken,
  account: { id: 'UC_luna', name: 'Luna' },
  remotePostIds,
  ...over,
});

beforeAll(async () => {
  fake = await startYouTubeFake();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe('YouTubeClient.readMetrics', () => {
  it('answers subscribers and video statistics exactly as served, leaving out unknown videos', async () => {
    fake.setFollowers(1530);
    fake.setMetrics('vid_a', { viewCount: 20_417, likeCount: 903, commentCount: 41, favoriteCount: 0 });

    const reading = await client().readMetrics(query(['vid_a', 'vid_gone']));

    expect(reading).toEqual({
      followers: 1530,
      posts: [{ remotePostId: 'vid_a', metrics: { impressions: null, views: 20_417, likes: 903, comments: 41, shares: null, saves: null } }],
    });
  });

  it('answers null followers when the channel hides its count', async () => {
    fake.setFollowers(null);
    expect((await client().readMetrics(query([]))).followers).toBeNull();
  });

  it('asks for at most 50 videos per call', async () => {
    const ids = Array.from({ length: 120 }, (_, i) => `vid_${i}`);
    for (const id of ids) fake.setMetrics(id, { viewCount: 1 });

    const reading = await client().readMetrics(query(ids));

    expect(fake.requestsTo('/youtube/v3/videos', 'GET').map((r) => r.query.get('id')!.split(',').length)).toEqual([50, 50, 20]);
    expect(reading.posts).toHaveLength(120);
    expect(fake.metricCalls).toBe(4);
  });

  it('answers a 429 as rate_limited with the Retry-After, and a quota 403 as rate_limited too', async () => {
    fake.setMode({ kind: 'rate_limit', times: 3, retryAfterSeconds: 90, on: 'metrics' });
    expect(await failure(client().readMetrics(query(['vid_a'])))).toMatchObject({ code: 'rate_limited', retryAfterMs: 90_000 });
    expect(fake.metricCalls).toBe(1);
    fake.setMode({ kind: 'fail', status: 403, times: 1, on: 'metrics', body: { error: { code: 403, message: 'quota', errors: [{ reason: 'quotaExceeded', message: 'quota' }] } } });
    expect((await failure(client().readMetrics(query([]))))).toMatchObject({ code: 'rate_limited' });
  });

  it('answers a refused token as token_expired', async () => {
    expect((await failure(client().readMetrics(query([], { accessToken: 'at_nope' })))).code).toBe('token_expired');
  });
});
