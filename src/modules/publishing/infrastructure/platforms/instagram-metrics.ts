import type { PostMetrics, RemotePostMetrics } from '../../application/ports/account-metrics.js';
import { PublishFailure, type MetricsQuery, type MetricsReading } from '../../application/ports/platform-client.js';
import { countOf, metricsCall, withQuery, type PlatformHttp } from './platform-http.js';

/**
 * The media insights asked for. Graph v22 retired `impressions` for `views` (and refuses the
 * whole call when a retired metric is named), so impressions stay null for Instagram.
 */
export const INSTAGRAM_MEDIA_METRICS = 'views,reach,likes,comments,shares,saved';

interface Insight {
  name?: string;
  values?: { value?: unknown }[];
  total_value?: { value?: unknown };
}

/**
 * Instagram Graph API: followers from `GET /{ig-user-id}?fields=followers_count`, each media's
 * numbers from `GET /{media-id}/insights?metric=…` (one call per post: Graph has no batch read
 * of insights). A media Graph no longer has (error 100) is left out.
 */
export async function readInstagramMetrics(http: PlatformHttp, api: string, query: MetricsQuery): Promise<MetricsReading> {
  const { accessToken, beforeCall } = query;
  const read = <T>(url: string, what: string) => metricsCall<T>((call) => http.call<T>(url, call), { what, bearer: accessToken }, beforeCall);
  const user = await read<{ followers_count?: unknown }>(withQuery(`${api}/${encodeURIComponent(query.account.id)}`, { fields: 'followers_count' }), 'the follower count');
  const posts: RemotePostMetrics[] = [];
  for (const id of query.remotePostIds) {
    const url = withQuery(`${api}/${encodeURIComponent(id)}/insights`, { metric: INSTAGRAM_MEDIA_METRICS });
    try {
      const answer = await read<{ data?: Insight[] }>(url, 'the media insights');
      posts.push({ remotePostId: id, metrics: mediaMetrics(answer.data ?? []) });
    } catch (err) {
      if (!isGone(err)) throw err;
    }
  }
  return { followers: countOf(user.followers_count), posts };
}

/** Graph's "object does not exist" (error code 100; its body is quoted in the failure's message). */
function isGone(err: unknown): boolean {
  return err instanceof PublishFailure && err.code === 'unknown_error' && /"code"\s*:\s*100\s*[,}]|does not exist/.test(err.message);
}

function mediaMetrics(insights: Insight[]): PostMetrics {
  const value = (name: string): number | null => {
    const insight = insights.find((i) => i.name === name);
    return insight ? countOf(insight.total_value?.value ?? insight.values?.[0]?.value) : null;
  };
  return { impressions: null, views: value('views'), likes: value('likes'), comments: value('comments'), shares: value('shares'), saves: value('saved') };
}
