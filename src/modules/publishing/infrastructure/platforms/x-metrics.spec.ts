import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startXFake, X_PATHS, type XFake } from '../../../../../test/fakes/platforms/x.js';
import { PublishFailure, type MetricsQuery } from '../../application/ports/platform-client.js';
import { failure, fakeClientOptions } from './spec-fixtures.js';
import { XClient } from './x-client.js';

let fake: XFake;
const ACCOUNT = { id: '1460000000000000001', name: 'luna_grows' };

const client = () => new XClient(fakeClientOptions(fake, X_PATHS));
const query = (remotePostIds: string[], over: Partial<MetricsQuery> = {}): MetricsQuery => ({
  accessToken: fake.issueTokens(ACCOUNT.id, ['tweet.read', 'users.read']).accessToken,
  account: ACCOUNT,
  remotePostIds,
  ...over,
});
const tweetReads = () => fake.requestsTo('/2/tweets', 'GET');

beforeAll(async () => {
  fake = await startXFake();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe('XClient.readMetrics', () => {
  it('answers the followers and each post metrics exactly as X serves them', async () => {
    fake.setFollowers(4821);
    fake.setMetrics('1790000000000000001', { impression_count: 9120, like_count: 311, reply_count: 17, retweet_count: 40, quote_count: 2, bookmark_count: 9 });
    fake.setMetrics('1790000000000000002', { like_count: 5 });

    const reading = await client().readMetrics(query(['1790000000000000001', '1790000000000000002', '1790000000000000404']));

    expect(reading.followers).toBe(4821);
    expect(reading.posts).toEqual([
      { remotePostId: '1790000000000000001', metrics: { impressions: 9120, views: null, likes: 311, comments: 17, shares: 42, saves: 9 } },
      { remotePostId: '1790000000000000002', metrics: { impressions: null, views: null, likes: 5, comments: null, shares: null, saves: null } },
    ]);
    const [user] = fake.requestsTo(`/2/users/${ACCOUNT.id}`, 'GET');
    expect(user.query.get('user.fields')).toBe('public_metrics');
    expect(tweetReads()[0].query.get('tweet.fields')).toBe('public_metrics');
  });

  it('asks for at most 100 posts per call', async () => {
    const ids = Array.from({ length: 230 }, (_, i) => String(1_790_000_000_000_100_000n + BigInt(i)));
    for (const id of ids) fake.setMetrics(id, { like_count: 1 });

    const reading = await client().readMetrics(query(ids));

    expect(tweetReads().map((r) => r.query.get('ids')!.split(',').length)).toEqual([100, 100, 30]);
    expect(reading.posts.map((p) => p.remotePostId)).toEqual(ids);
    expect(fake.metricCalls).toBe(4);
  });

  it('asks the quota reserve before every call and stops when it refuses', async () => {
    const ids = Array.from({ length: 150 }, (_, i) => `17900000000002${String(i).padStart(5, '0')}`);
    let asked = 0;
    const beforeCall = async () => {
      asked += 1;
      if (asked === 3) throw new PublishFailure('rate_limited', 'the metrics share is spent', 'before', 60_000);
    };

    const err = await failure(client().readMetrics(query(ids, { beforeCall })));

    expect(err).toMatchObject({ code: 'rate_limited', retryAfterMs: 60_000 });
    expect(fake.metricCalls).toBe(2);
  });

  it('answers a 429 at once as rate_limited with the Retry-After, without retrying', async () => {
    fake.setMode({ kind: 'rate_limit', times: 5, retryAfterSeconds: 42, on: 'metrics' });

    const err = await failure(client().readMetrics(query(['1790000000000000001'])));

    expect(err).toMatchObject({ code: 'rate_limited', retryAfterMs: 42_000 });
    expect(fake.metricCalls).toBe(1);
  });

  it('answers a refused token as token_expired', async () => {
    const err = await failure(client().readMetrics(query(['1790000000000000001'], { accessToken: 'at_unknown' })));
    expect(err.code).toBe('token_expired');
  });

  it('answers a server error as network_error and a bad request as unknown_error', async () => {
    fake.setMode({ kind: 'fail', status: 503, times: 1, on: 'metrics' });
    expect((await failure(client().readMetrics(query([])))).code).toBe('network_error');
    fake.setMode({ kind: 'fail', status: 400, times: 1, on: 'metrics' });
    expect((await failure(client().readMetrics(query([])))).code).toBe('unknown_error');
  });
});
