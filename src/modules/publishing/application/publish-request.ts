import type { ContentItem } from '../../content/index.js';
import { PUBLISH_MEDIA_URL_TTL_SECONDS, type MediaUrls, type Storage } from '../../../platform/storage/index.js';
import type { UsableConnection } from '../domain/connection.js';
import type { ScheduledPost } from '../domain/scheduled-post.js';
import { PublishFailure, type PublishMedia, type PublishRequest } from './ports/platform-client.js';

const TITLE_MAX = 100;

/** The text a post carries: caption, call to action and hashtags, as the user approved them. */
export function postText(item: Pick<ContentItem, 'caption' | 'cta' | 'hashtags'>): string {
  const tags = item.hashtags.map((t) => (t.startsWith('#') ? t : `#${t}`)).join(' ');
  return [item.caption, item.cta, tags].map((s) => s?.trim()).filter(Boolean).join('\n\n');
}

/** A title for platforms that want one: the caption's first line, cut at a word. */
export function postTitle(item: Pick<ContentItem, 'caption' | 'imagePrompt'>): string {
  const first = (item.caption ?? item.imagePrompt).split('\n')[0].trim() || item.imagePrompt;
  if (first.length <= TITLE_MAX) return first;
  let cut = first.slice(0, TITLE_MAX - 1);
  // Never end on half of a surrogate pair (an emoji cut in two).
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 40 ? cut.lastIndexOf(' ') : cut.length)}…`;
}

/**
 * The platform-neutral request for one post of an item, its media readable from our storage, or by
 * a signed URL that lives long enough for a platform that fetches by URL (Instagram, TikTok,
 * Pinterest) to do so, however late it gets round to it.
 */
export function toPublishRequest(post: ScheduledPost, item: ContentItem, connection: UsableConnection, storage: Storage, urls: MediaUrls): PublishRequest {
  const media: PublishMedia[] = item.media.map((m) => ({
    url: urls.sign(m.key, PUBLISH_MEDIA_URL_TTL_SECONDS),
    contentType: m.contentType,
    kind: m.kind,
    ...(m.durationSeconds !== undefined ? { durationSeconds: m.durationSeconds } : {}),
    read: async () => {
      const object = await storage.get(m.key);
      if (!object) throw new PublishFailure('content_rejected', `The media file ${m.index} of the item is gone.`);
      return object.body;
    },
  }));
  return {
    postId: post.id,
    accessToken: connection.accessToken,
    account: { id: connection.accountId ?? '', name: connection.accountName ?? '' },
    contentType: item.contentType,
    text: postText(item),
    title: postTitle(item),
    media,
    boardId: connection.defaultBoardId,
  };
}
