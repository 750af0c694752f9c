import type { PostMetrics, RemotePostMetrics } from '../../application/ports/account-metrics.js';
import type { MetricsQuery, MetricsReading } from '../../application/ports/platform-client.js';
import { batches, countOf, metricsCall, withQuery, type PlatformHttp } from './platform-http.js';

/** `GET /2/tweets` takes at most 100 ids per call. */
export const X_TWEETS_PER_CALL = 100;

interface PublicMetrics {
  impression_count?: unknown;
  like_count?: unknown;
  reply_count?: unknown;
  retweet_count?: unknown;
  quote_count?: unknown;
  bookmark_count?: unknown;
}
interface UserMetricsAnswer {
  data?: { public_metrics?: { followers_count?: unknown } };
}
interface TweetsAnswer {
  /** Tweets X no longer has come back under `errors`, not here: they are left out. */
  data?: { id: string; public_metrics?: PublicMetrics }[];
}

/**
 * X API v2: followers from `GET /2/users/{id}?user.fields=public_metrics`, post metrics from
 * `GET /2/tweets?ids=…&tweet.fields=public_metrics` in batches of 100. Reposts and quotes are
 * both shares; bookmarks are saves; X reports impressions, not views.
 */
export async function readXMetrics(http: PlatformHttp, apiUrl: string, query: MetricsQuery): Promise<MetricsReading> {
  const { accessToken, beforeCall } = query;
  const send = <T>(url: string, what: string) => metricsCall<T>((call) => http.call<T>(url, call), { what, bearer: accessToken }, beforeCall);
  const user = await send<UserMetricsAnswer>(withQuery(`${apiUrl}/2/users/${encodeURIComponent(query.account.id)}`, { 'user.fields': 'public_metrics' }), 'the follower count');
  const posts: RemotePostMetrics[] = [];
  for (const ids of batches(query.remotePostIds, X_TWEETS_PER_CALL)) {
    const url = withQuery(`${apiUrl}/2/tweets`, { ids: ids.join(','), 'tweet.fields': 'public_metrics' });
    const answer = await send<TweetsAnswer>(url, 'the post metrics');
    for (const tweet of answer.data ?? []) posts.push({ remotePostId: tweet.id, metrics: tweetMetrics(tweet.public_metrics ?? {}) });
  }
  return { followers: countOf(user.data?.public_metrics?.followers_count), posts };
}

function tweetMetrics(m: PublicMetrics): PostMetrics {
  const retweets = countOf(m.retweet_count);
  const quotes = countOf(m.quote_count);
  return {
    impressions: countOf(m.impression_count),
    views: null,
    likes: countOf(m.like_count),
    comments: countOf(m.reply_count),
    shares: retweets === null && quotes === null ? null : (retweets ?? 0) + (quotes ?? 0),
    saves: countOf(m.bookmark_count),
  };
}
