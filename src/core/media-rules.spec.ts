import { describe, expect, it } from '@jest/globals';
import { mediaRefusal, needsVideo, publishesContentType, type RuledMedia } from './media-rules.js';
import type { Platform } from './platforms.js';

const image: RuledMedia = { kind: 'image' };
const video = (durationSeconds?: number): RuledMedia => ({ kind: 'video', ...(durationSeconds !== undefined ? { durationSeconds } : {}) });
const TYPES = ['single', 'carousel', 'story', 'video', 'reel', 'short'] as const;

describe('MEDIA_RULES', () => {
  it('publishes the content types of contract §6, no more', () => {
    const expected: Record<Platform, string[]> = {
      instagram: ['single', 'carousel', 'story', 'video', 'reel', 'short'],
      tiktok: ['video', 'reel', 'short'],
      youtube: ['video', 'reel', 'short'],
      twitter: ['single', 'carousel'],
      pinterest: ['single', 'carousel'],
    };
    for (const [platform, types] of Object.entries(expected) as Array<[Platform, string[]]>) {
      expect(TYPES.filter((t) => publishesContentType(platform, t))).toEqual(types);
      expect(publishesContentType(platform, 'toString')).toBe(false);
    }
  });

  it('wants video for reels, shorts and videos everywhere, and never for singles', () => {
    for (const platform of ['instagram', 'tiktok', 'youtube'] as const) {
      for (const type of ['video', 'reel', 'short']) expect(needsVideo(platform, type)).toBe(true);
    }
    for (const platform of ['instagram', 'twitter', 'pinterest'] as const) expect(needsVideo(platform, 'single')).toBe(false);
    expect(needsVideo('instagram', 'story')).toBe(false);
  });

  it('refuses a still image as a TikTok short, a YouTube short or an Instagram reel', () => {
    expect(mediaRefusal('tiktok', 'short', [image])).toBe('TikTok short posts take video only; this one holds a still image.');
    expect(mediaRefusal('youtube', 'short', [image])).toMatch(/video only/);
    expect(mediaRefusal('instagram', 'reel', [image])).toMatch(/video only/);
    expect(mediaRefusal('tiktok', 'short', [video(8)])).toBeNull();
  });

  it('takes a still image or a video as an Instagram story, one of them', () => {
    expect(mediaRefusal('instagram', 'story', [image])).toBeNull();
    expect(mediaRefusal('instagram', 'story', [video(10)])).toBeNull();
    expect(mediaRefusal('instagram', 'story', [image, image])).toBe('Instagram story posts take exactly 1 image or video; this one has 2.');
  });

  it('refuses videos on the photo platforms and counts carousel items', () => {
    expect(mediaRefusal('twitter', 'single', [video(5)])).toBe('X single posts take image only; this one holds a video.');
    expect(mediaRefusal('pinterest', 'carousel', [image, image, image, image, image, image])).toMatch(/2 to 5 images; this one has 6/);
    expect(mediaRefusal('twitter', 'carousel', [image, image, image, image, image])).toMatch(/2 to 4 images/);
    expect(mediaRefusal('instagram', 'carousel', [image, video(4)])).toBeNull();
    expect(mediaRefusal('instagram', 'single', [])).toMatch(/exactly 1 image; this one has 0/);
  });

  it('bounds video length where the platform does, and skips videos of unknown length', () => {
    expect(mediaRefusal('youtube', 'short', [video(180)])).toBeNull();
    expect(mediaRefusal('youtube', 'short', [video(181)])).toBe('YouTube short posts run at most 180 seconds; this video runs 181.');
    expect(mediaRefusal('youtube', 'video', [video(1200)])).toBeNull();
    expect(mediaRefusal('instagram', 'reel', [video(2)])).toMatch(/at least 3 seconds/);
    expect(mediaRefusal('instagram', 'story', [video(61)])).toMatch(/at most 60 seconds/);
    expect(mediaRefusal('tiktok', 'video', [video(601)])).toMatch(/at most 600 seconds/);
    expect(mediaRefusal('tiktok', 'video', [video()])).toBeNull();
  });

  it('names what a platform takes when it does not publish the type', () => {
    expect(mediaRefusal('tiktok', 'single', [image])).toBe('TikTok does not publish single posts; it takes short, video, reel.');
  });
});
