import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { INSTAGRAM_PATHS, startInstagramFake, type InstagramFake } from '../../../../../test/fakes/platforms/instagram.js';
import { PINTEREST_PATHS, startPinterestFake, type PinterestFake } from '../../../../../test/fakes/platforms/pinterest.js';
import { InstagramClient } from './instagram-client.js';
import { PinterestClient } from './pinterest-client.js';
import { failure, fakeClientOptions } from './spec-fixtures.js';

let ig: InstagramFake;
let pin: PinterestFake;
const IG_ACCOUNT = { id: '17841400008460056', name: 'luna.grows' };

beforeAll(async () => {
  [ig, pin] = await Promise.all([startInstagramFake(), startPinterestFake()]);
});
afterAll(() => Promise.all([ig.close(), pin.close()]));
beforeEach(() => {
  ig.reset();
  pin.reset();
});

describe('InstagramClient.readMetrics', () => {
  const client = () => new InstagramClient(fakeClientOptions(ig, INSTAGRAM_PATHS));
  const token = (scopes = ['instagram_basic', 'instagram_manage_insights']) => ig.issueTokens(IG_ACCOUNT.id, scopes).accessToken;

  it('answers followers and each media insights as served, one call per media, leaving out a gone one', async () => {
    ig.setFollowers(12_345);
    ig.setMetrics('1789001', { views: 5400, reach: 3100, likes: 420, comments: 31, shares: 12, saved: 57 });

    const reading = await client().readMetrics({ accessToken: token(), account: IG_ACCOUNT, remotePostIds: ['1789001', '1789404'] });

    expect(reading).toEqual({
      followers: 12_345,
      posts: [{ remotePostId: '1789001', metrics: { impressions: null, views: 5400, likes: 420, comments: 31, shares: 12, saves: 57 } }],
    });
    expect(ig.requestsTo('/v21.0/1789001/insights', 'GET')[0].query.get('metric')).toBe('views,reach,likes,comments,shares,saved');
    expect(ig.metricCalls).toBe(3);
  });

  it('answers an expired token (Graph code 190) as token_expired and a 429 as rate_limited', async () => {
    expect((await failure(client().readMetrics({ accessToken: 'nope', account: IG_ACCOUNT, remotePostIds: [] }))).code).toBe('token_expired');
    ig.setMode({ kind: 'rate_limit', times: 1, retryAfterSeconds: 300, on: 'metrics' });
    expect(await failure(client().readMetrics({ accessToken: token(), account: IG_ACCOUNT, remotePostIds: ['1789001'] }))).toMatchObject({ code: 'rate_limited', retryAfterMs: 300_000 });
  });
});

describe('PinterestClient.readMetrics', () => {
  const client = () => new PinterestClient(fakeClientOptions(pin, PINTEREST_PATHS));
  const account = { id: 'lunagrows', name: 'lunagrows' };
  const token = () => pin.issueTokens('lunagrows', ['pins:read', 'user_accounts:read']).accessToken;

  it('answers followers and each Pin 90-day summary as served, leaving out a gone Pin', async () => {
    pin.setFollowers(880);
    pin.setMetrics('9001', { IMPRESSION: 15_000, SAVE: 230, PIN_CLICK: 410, OUTBOUND_CLICK: 75 });

    const reading = await client().readMetrics({ accessToken: token(), account, remotePostIds: ['9001', '9404'] });

    expect(reading).toEqual({
      followers: 880,
      posts: [{ remotePostId: '9001', metrics: { impressions: 15_000, views: null, likes: null, comments: null, shares: null, saves: 230 } }],
    });
    const q = pin.requestsTo('/v5/pins/9001/analytics', 'GET')[0].query;
    expect(q.get('metric_types')).toBe('IMPRESSION,SAVE,PIN_CLICK,OUTBOUND_CLICK');
    expect(Date.parse(q.get('end_date')!) - Date.parse(q.get('start_date')!)).toBe(89 * 86_400_000);
  });

  it('answers a refused token as token_expired and a 429 as rate_limited, without retrying', async () => {
    expect((await failure(client().readMetrics({ accessToken: 'nope', account, remotePostIds: [] }))).code).toBe('token_expired');
    pin.setMode({ kind: 'rate_limit', times: 3, retryAfterSeconds: 5, on: 'metrics' });
    expect(await failure(client().readMetrics({ accessToken: token(), account, remotePostIds: ['9001'] }))).toMatchObject({ code: 'rate_limited', retryAfterMs: 5000 });
    expect(pin.metricCalls).toBe(1);
  });
});
