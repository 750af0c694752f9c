import type { Platform } from '../../../core/index.js';

const VIDEO_TYPES = new Set(['video', 'reel', 'short']);
const IMAGE_POST_TYPES = new Set(['single', 'carousel']);

/**
 * Which content types a platform can publish (contract §6): TikTok and YouTube only video-based
 * types, Twitter and Pinterest only single and carousel, Instagram all.
 */
const ACCEPTS: Readonly<Record<Platform, (contentType: string) => boolean>> = {
  instagram: () => true,
  tiktok: (t) => VIDEO_TYPES.has(t),
  youtube: (t) => VIDEO_TYPES.has(t),
  twitter: (t) => IMAGE_POST_TYPES.has(t),
  pinterest: (t) => IMAGE_POST_TYPES.has(t),
};

export function canPublish(platform: Platform, contentType: string): boolean {
  return ACCEPTS[platform](contentType);
}
