import type { CommentsQuery, InboundComment } from '../../application/ports/platform-client.js';
import { metricsCall, withQuery, type PlatformHttp } from './platform-http.js';

/** X answers at most 100 mentions a page and keeps the latest 800 in reach of this endpoint. */
const PAGE = 100;
const PAGES = 8;

interface MentionsAnswer {
  data?: { id: string; text: string; author_id?: string; created_at?: string; conversation_id?: string }[];
  includes?: { users?: { id: string; username?: string; name?: string }[] };
  meta?: { next_token?: string };
}

/**
 * `GET /2/users/{id}/mentions`, newest first, from `since` (start_time, whole seconds: X takes no
 * fractions, so the first second is read again and filtered here) page by page; without `since`,
 * the latest page. A mention replying in one of our posts' conversations names that post
 * (`conversation_id`); a mention that starts its own conversation names none.
 */
export async function readXMentions(http: PlatformHttp, apiUrl: string, query: CommentsQuery): Promise<InboundComment[]> {
  const { since, accessToken, beforeCall } = query;
  const found: InboundComment[] = [];
  let token: string | undefined;
  for (let page = 0; page < PAGES; page++) {
    const url = withQuery(`${apiUrl}/2/users/${encodeURIComponent(query.account.id)}/mentions`, {
      max_results: String(PAGE),
      start_time: since ? new Date(Math.floor(since.getTime() / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined,
      'tweet.fields': 'author_id,created_at,conversation_id,in_reply_to_user_id',
      expansions: 'author_id',
      'user.fields': 'username,name',
      pagination_token: token,
    });
    const answer = await metricsCall<MentionsAnswer>((call) => http.call<MentionsAnswer>(url, call), { what: 'the mentions', bearer: accessToken }, beforeCall);
    const users = new Map((answer.includes?.users ?? []).map((u) => [u.id, u]));
    for (const tweet of answer.data ?? []) {
      // Asked for: a mention without its author could not be answered or told apart from our own.
      if (!tweet.author_id) continue;
      const author = users.get(tweet.author_id);
      found.push({
        remoteMessageId: tweet.id,
        authorId: tweet.author_id,
        authorName: author?.username ?? author?.name ?? tweet.author_id,
        text: tweet.text,
        createdAt: new Date(tweet.created_at ?? Date.now()),
        remotePostId: tweet.conversation_id && tweet.conversation_id !== tweet.id ? tweet.conversation_id : null,
      });
    }
    token = answer.meta?.next_token;
    if (!token || !since) break;
  }
  return since ? found.filter((c) => c.createdAt.getTime() > since.getTime()) : found;
}
