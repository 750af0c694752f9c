import type { RemotePostMetrics } from '../../application/ports/account-metrics.js';
import { PublishFailure, type MetricsQuery, type MetricsReading } from '../../application/ports/platform-client.js';
import { countOf, metricsCall, withQuery, type PlatformCall, type PlatformReply } from './platform-http.js';

/** Pinterest serves Pin analytics for at most the last 90 days. */
export const PINTEREST_ANALYTICS_DAYS = 90;
const DAY_MS = 86_400_000;

type Send = <T>(url: string, call: PlatformCall) => Promise<PlatformReply<T>>;

interface PinAnalytics {
  all?: { summary_metrics?: Record<string, unknown> };
}

/**
 * Pinterest API v5: followers from `GET /user_account`, each Pin's numbers from
 * `GET /pins/{id}/analytics` summed over the last 90 days (one call per Pin). IMPRESSION is
 * impressions and SAVE saves; Pin clicks have no field of ours. A Pin that is gone (404) is left out.
 */
export async function readPinterestMetrics(send: Send, apiUrl: string, query: MetricsQuery, now = new Date()): Promise<MetricsReading> {
  const { accessToken, beforeCall } = query;
  const read = <T>(url: string, what: string) => metricsCall<T>((call) => send<T>(url, call), { what, bearer: accessToken }, beforeCall);
  const account = await read<{ follower_count?: unknown }>(`${apiUrl}/user_account`, 'the follower count');
  const range = {
    start_date: day(new Date(now.getTime() - (PINTEREST_ANALYTICS_DAYS - 1) * DAY_MS)),
    end_date: day(now),
    metric_types: 'IMPRESSION,SAVE,PIN_CLICK,OUTBOUND_CLICK',
  };
  const posts: RemotePostMetrics[] = [];
  for (const id of query.remotePostIds) {
    try {
      const answer = await read<PinAnalytics>(withQuery(`${apiUrl}/pins/${encodeURIComponent(id)}/analytics`, range), 'the Pin analytics');
      const sums = answer.all?.summary_metrics ?? {};
      posts.push({ remotePostId: id, metrics: { impressions: countOf(sums.IMPRESSION), views: null, likes: null, comments: null, shares: null, saves: countOf(sums.SAVE) } });
    } catch (err) {
      if (!(err instanceof PublishFailure && / answered 404 to /.test(err.message))) throw err;
    }
  }
  return { followers: countOf(account.follower_count), posts };
}

/** Pinterest's dates: YYYY-MM-DD, UTC. */
function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}
