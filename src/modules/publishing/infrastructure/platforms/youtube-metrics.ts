import type { RemotePostMetrics } from '../../application/ports/account-metrics.js';
import type { MetricsQuery, MetricsReading } from '../../application/ports/platform-client.js';
import { batches, countOf, metricsCall, type PlatformCall, type PlatformReply } from './platform-http.js';

/** `videos.list` takes at most 50 ids per call. */
export const YOUTUBE_VIDEOS_PER_CALL = 50;

type Send = <T>(url: string, call: PlatformCall) => Promise<PlatformReply<T>>;

interface ChannelStatistics {
  items?: { statistics?: { subscriberCount?: unknown; hiddenSubscriberCount?: boolean } }[];
}
interface VideoStatistics {
  /** Videos YouTube no longer has are simply missing from `items`: they are left out. */
  items?: { id: string; statistics?: { viewCount?: unknown; likeCount?: unknown; commentCount?: unknown } }[];
}

/**
 * YouTube Data API v3: subscribers from `channels.list?part=statistics&mine=true`, video
 * statistics from `videos.list?part=statistics&id=…` in batches of 50 (1 quota unit each).
 * YouTube reports views, likes and comments; no impressions, shares or saves through this API.
 */
export async function readYouTubeMetrics(send: Send, apiUrl: string, query: MetricsQuery): Promise<MetricsReading> {
  const { accessToken, beforeCall } = query;
  const read = <T>(url: string, what: string) => metricsCall<T>((call) => send<T>(url, call), { what, bearer: accessToken }, beforeCall);
  const channels = await read<ChannelStatistics>(`${apiUrl}/channels?part=statistics&mine=true`, 'the subscriber count');
  const stats = channels.items?.[0]?.statistics;
  const posts: RemotePostMetrics[] = [];
  for (const ids of batches(query.remotePostIds, YOUTUBE_VIDEOS_PER_CALL)) {
    const url = `${apiUrl}/videos?part=statistics&id=${ids.map(encodeURIComponent).join(',')}&maxResults=${YOUTUBE_VIDEOS_PER_CALL}`;
    const answer = await read<VideoStatistics>(url, 'the video statistics');
    for (const video of answer.items ?? []) {
      const s = video.statistics ?? {};
      posts.push({
        remotePostId: video.id,
        metrics: { impressions: null, views: countOf(s.viewCount), likes: countOf(s.likeCount), comments: countOf(s.commentCount), shares: null, saves: null },
      });
    }
  }
  // A channel that hides its subscriber count still answers one (rounded or 0): it is not the count.
  return { followers: stats?.hiddenSubscriberCount ? null : countOf(stats?.subscriberCount), posts };
}
