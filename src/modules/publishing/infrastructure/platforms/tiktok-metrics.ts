import type { RemotePostMetrics } from '../../application/ports/account-metrics.js';
import type { MetricsQuery, MetricsReading } from '../../application/ports/platform-client.js';
import { batches, countOf, metricsCall, type PlatformCall, type PlatformReply } from './platform-http.js';

/** `POST /v2/video/query/` takes at most 20 video ids per call. */
export const TIKTOK_VIDEOS_PER_CALL = 20;

export interface TikTokEnvelope<T> {
  data?: T;
  error?: { code?: string; message?: string };
}
type Send = <T>(url: string, call: PlatformCall) => Promise<PlatformReply<TikTokEnvelope<T>>>;

interface VideoQuery {
  /** Videos TikTok no longer has (or that are not the user's) are missing here: left out. */
  videos?: { id: string; view_count?: unknown; like_count?: unknown; comment_count?: unknown; share_count?: unknown }[];
}
interface UserStats {
  user?: { follower_count?: unknown };
}

/**
 * TikTok Display API: followers from `GET /v2/user/info/?fields=follower_count` (scope
 * user.info.stats), video metrics from `POST /v2/video/query/` (scope video.list), 20 ids a call.
 * TikTok reports views, likes, comments and shares; `check` reads TikTok's in-body error codes.
 */
export async function readTikTokMetrics(send: Send, check: (answer: TikTokEnvelope<unknown>, what: string) => void, apiUrl: string, query: MetricsQuery): Promise<MetricsReading> {
  const { accessToken, beforeCall } = query;
  const read = async <T>(url: string, what: string, json?: unknown): Promise<T | undefined> => {
    const answer = await metricsCall<TikTokEnvelope<T>>((call) => send<T>(url, call), { what, bearer: accessToken, ...(json ? { method: 'POST', json } : {}) }, beforeCall);
    check(answer, what);
    return answer.data;
  };
  const user = await read<UserStats>(`${apiUrl}/v2/user/info/?fields=follower_count`, 'the follower count');
  const posts: RemotePostMetrics[] = [];
  for (const ids of batches(query.remotePostIds, TIKTOK_VIDEOS_PER_CALL)) {
    const url = `${apiUrl}/v2/video/query/?fields=id,view_count,like_count,comment_count,share_count`;
    const data = await read<VideoQuery>(url, 'the video metrics', { filters: { video_ids: ids } });
    for (const v of data?.videos ?? []) {
      posts.push({
        remotePostId: String(v.id),
        metrics: { impressions: null, views: countOf(v.view_count), likes: countOf(v.like_count), comments: countOf(v.comment_count), shares: countOf(v.share_count), saves: null },
      });
    }
  }
  return { followers: countOf(user?.user?.follower_count), posts };
}
