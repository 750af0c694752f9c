import { describe, expect, it } from '@jest/globals';
import type { Platform } from '../../../core/index.js';
import { canPublish } from './compatibility.js';

const TYPES = ['single', 'carousel', 'story', 'video', 'reel', 'short'] as const;

/** Contract §6: TikTok and YouTube only video-based types, Twitter and Pinterest single and carousel, Instagram all. */
const EXPECTED: Record<Platform, Record<(typeof TYPES)[number], boolean>> = {
  instagram: { single: true, carousel: true, story: true, video: true, reel: true, short: true },
  tiktok: { single: false, carousel: false, story: false, video: true, reel: true, short: true },
  youtube: { single: false, carousel: false, story: false, video: true, reel: true, short: true },
  twitter: { single: true, carousel: true, story: false, video: false, reel: false, short: false },
  pinterest: { single: true, carousel: true, story: false, video: false, reel: false, short: false },
};

describe('canPublish', () => {
  it('matches contract §6 for every platform and content type', () => {
    const actual = Object.fromEntries(
      (Object.keys(EXPECTED) as Platform[]).map((p) => [p, Object.fromEntries(TYPES.map((t) => [t, canPublish(p, t)]))]),
    );
    expect(actual).toEqual(EXPECTED);
  });

  it('refuses unknown content types on the restricted platforms', () => {
    for (const p of ['tiktok', 'youtube', 'twitter', 'pinterest'] as const) {
      expect(canPublish(p, 'gif')).toBe(false);
      expect(canPublish(p, 'VIDEO')).toBe(false);
      expect(canPublish(p, '')).toBe(false);
    }
  });
});
