import { describe, expect, it } from '@jest/globals';
import { canonicalPlatform, defaultVideoType, isPlatformName, PLATFORM_NAMES } from './platforms.js';

describe('platform names', () => {
  it('accepts the platforms, x, and the neutral aliases; nothing else', () => {
    expect(PLATFORM_NAMES).toHaveLength(11);
    for (const p of ['instagram', 'x', 'photo_share', 'pinboard']) expect(isPlatformName(p)).toBe(true);
    for (const p of ['Instagram', 'facebook', '', 42]) expect(isPlatformName(p)).toBe(false);
    expect(canonicalPlatform('x')).toBe('twitter');
    expect(canonicalPlatform('video_share')).toBe('youtube');
  });

  it('defaults video to short on short-video and long-video platforms, reel elsewhere', () => {
    for (const p of ['tiktok', 'short_video', 'youtube', 'video_share'] as const) expect(defaultVideoType(p)).toBe('short');
    for (const p of ['instagram', 'photo_share', 'twitter', 'x', 'microblog', 'pinterest', 'pinboard'] as const) expect(defaultVideoType(p)).toBe('reel');
  });
});
