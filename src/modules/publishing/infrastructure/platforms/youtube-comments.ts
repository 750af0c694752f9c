import type { CommentsQuery, InboundComment } from '../../application/ports/platform-client.js';
import { metricsCall, withQuery, type PlatformCall, type PlatformReply } from './platform-http.js';

type Send = <T>(url: string, call: PlatformCall) => Promise<PlatformReply<T>>;

/** commentThreads.list answers at most 100 threads a page; a poll reads at most this many pages. */
const PAGE = 100;
const PAGES = 20;

interface CommentSnippet {
  videoId?: string;
  authorDisplayName?: string;
  authorChannelId?: { value?: string };
  textOriginal?: string;
  textDisplay?: string;
  publishedAt?: string;
}
interface ThreadList {
  items?: { id?: string; snippet?: { videoId?: string; topLevelComment?: { id?: string; snippet?: CommentSnippet } } }[];
  nextPageToken?: string;
}

/**
 * `commentThreads.list?allThreadsRelatedToChannelId=…&order=time`: the channel's videos' top-level
 * comments, newest first, page after page until one is not newer than `since` (without `since`,
 * the latest page). `textOriginal` is served only to the comment's author; otherwise the plain-text
 * `textDisplay` (asked for with textFormat=plainText) is the text.
 */
export async function readYouTubeComments(send: Send, apiUrl: string, query: CommentsQuery): Promise<InboundComment[]> {
  const { since, accessToken, beforeCall } = query;
  const found: InboundComment[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < PAGES; page++) {
    const url = withQuery(`${apiUrl}/commentThreads`, {
      part: 'snippet',
      allThreadsRelatedToChannelId: query.account.id,
      order: 'time',
      maxResults: String(PAGE),
      textFormat: 'plainText',
      pageToken,
    });
    const answer = await metricsCall<ThreadList>((call) => send<ThreadList>(url, call), { what: 'the comment threads', bearer: accessToken }, beforeCall);
    let reachedSince = false;
    for (const thread of answer.items ?? []) {
      const top = thread.snippet?.topLevelComment;
      const comment = inbound(top?.id ?? thread.id, top?.snippet, thread.snippet?.videoId);
      if (!comment) continue;
      if (since && comment.createdAt.getTime() <= since.getTime()) {
        reachedSince = true;
        continue;
      }
      found.push(comment);
    }
    pageToken = answer.nextPageToken;
    if (!since || reachedSince || !pageToken) break;
  }
  return found;
}

function inbound(id: string | undefined, snippet: CommentSnippet | undefined, videoId: string | undefined): InboundComment | null {
  const authorId = snippet?.authorChannelId?.value;
  const createdAt = new Date(snippet?.publishedAt ?? '');
  if (!id || !snippet || !authorId || Number.isNaN(createdAt.getTime())) return null;
  return {
    remoteMessageId: id,
    authorId,
    authorName: snippet.authorDisplayName ?? authorId,
    text: snippet.textOriginal ?? snippet.textDisplay ?? '',
    createdAt,
    remotePostId: snippet.videoId ?? videoId ?? null,
  };
}
