import { mediaRefusal, publishesContentType, type Platform, type RuledMedia } from '../../../core/index.js';

/** Whether a platform publishes a content type at all (the media rules table, contract §6). */
export function canPublish(platform: Platform, contentType: string): boolean {
  return publishesContentType(platform, contentType);
}

/** Why the platform would refuse this item's media for its content type, or null (see `MEDIA_RULES`). */
export function refusalOf(platform: Platform, item: { contentType: string; media: readonly RuledMedia[] }): string | null {
  return mediaRefusal(platform, item.contentType, item.media);
}
