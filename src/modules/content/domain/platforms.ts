import { canonicalPlatform, type PlatformName } from '../../../core/index.js';
import type { ContentType } from './content-item.js';

export { canonicalPlatform, isPlatformName, PLATFORM_NAMES, type Platform, type PlatformName } from '../../../core/index.js';

/** Video default type (interface §4.4): short on the short-video and long-video platforms, else reel. */
export function defaultVideoType(platform: PlatformName): ContentType {
  const p = canonicalPlatform(platform);
  return p === 'tiktok' || p === 'youtube' ? 'short' : 'reel';
}

export const VIDEO_TYPES: readonly ContentType[] = ['video', 'reel', 'short'];
export const VIDEO_MIN_SECONDS = 5;
export const VIDEO_MAX_SECONDS = 60;
export const VIDEO_DEFAULT_SECONDS = 8;
export const VIDEO_DEFAULT_ASPECT = '9:16';
