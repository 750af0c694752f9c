import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startTikTokFake, TIKTOK_PATHS, type TikTokFake } from '../../../../../test/fakes/platforms/tiktok.js';
import type { MetricsQuery } from '../../application/ports/platform-client.js';
import { failure, fakeClientOptions } from './spec-fixtures.js';
import { TikTokClient } from './tiktok-client.js';

let fake: TikTokFake;
const client = () => new TikTokClient(fakeClientOptions(fake, TIKTOK_PATHS));
const query = (remotePostIds: string[], scopes = ['user.info.basic', 'user.info.stats', 'video.list']): MetricsQuery => ({
  accessToken: fake.issueTokens('open_luna', scopes).accessToken,
  account: { id: 'open_luna', name: 'luna' },
  remotePostIds,
});

beforeAll(async () => {
  fake = await startTikTokFake();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe('TikTokClient.readMetrics', () => {
  it('answers followers and video metrics exactly as served, leaving out unknown videos', async () => {
    fake.setFollowers(77_001);
    fake.setMetrics('7300000000000000001', { view_count: 150_230, like_count: 12_004, comment_count: 388, share_count: 901 });

    const reading = await client().readMetrics(query(['7300000000000000001', '7300000000000000999']));

    expect(reading).toEqual({
      followers: 77_001,
      posts: [{ remotePostId: '7300000000000000001', metrics: { impressions: null, views: 150_230, likes: 12_004, comments: 388, shares: 901, saves: null } }],
    });
    const [videoQuery] = fake.requestsTo('/v2/video/query/', 'POST');
    expect(videoQuery.query.get('fields')).toBe('id,view_count,like_count,comment_count,share_count');
    expect(JSON.parse(videoQuery.body.toString())).toEqual({ filters: { video_ids: ['7300000000000000001', '7300000000000000999'] } });
  });

  it('asks for at most 20 videos per call', async () => {
    const ids = Array.from({ length: 45 }, (_, i) => `73${String(i).padStart(17, '0')}`);
    for (const id of ids) fake.setMetrics(id, { view_count: 3 });

    const reading = await client().readMetrics(query(ids));

    expect(fake.requestsTo('/v2/video/query/', 'POST').map((r) => JSON.parse(r.body.toString()).filters.video_ids.length)).toEqual([20, 20, 5]);
    expect(reading.posts).toHaveLength(45);
    expect(fake.metricCalls).toBe(4);
  });

  it('answers a 429 as rate_limited with the Retry-After, without retrying', async () => {
    fake.setMode({ kind: 'rate_limit', times: 3, retryAfterSeconds: 12, on: 'metrics' });
    expect(await failure(client().readMetrics(query(['73'])))).toMatchObject({ code: 'rate_limited', retryAfterMs: 12_000 });
    expect(fake.metricCalls).toBe(1);
  });

  it('answers an unknown token, or one without the stats scope, as token_expired', async () => {
    const unknown = query([]);
    expect((await failure(client().readMetrics({ ...unknown, accessToken: 'at_nope' }))).code).toBe('token_expired');
    expect((await failure(client().readMetrics(query([], ['user.info.basic', 'video.publish'])))).code).toBe('token_expired');
  });
});
