import { describe, expect, it } from '@jest/globals';
import { CONTENT_TYPES } from './content-item.js';
import { imageCharge, imageCount, variantsCharge, videoCharge, weekPlanCharge, type ContentPrices } from './pricing.js';

const prices: ContentPrices = { imagePerImage: 3, captionVariants: 1, weekPlanPerItem: 1, videoPerSecond: 1 };

describe('content prices', () => {
  it('a carousel is three images, every other type one', () => {
    for (const t of CONTENT_TYPES) expect(imageCount(t)).toBe(t === 'carousel' ? 3 : 1);
    expect(imageCharge('single', prices)).toBe(3);
    expect(imageCharge('carousel', prices)).toBe(9);
    expect(imageCharge('carousel', { ...prices, imagePerImage: 5 })).toBe(15);
  });

  it('a week plan is 1 per item plus 3 per item image, or the video price for a video slot', () => {
    const images = (n: number) => Array.from({ length: n }, () => ({ kind: 'image' as const }));
    const videos = (n: number) => Array.from({ length: n }, () => ({ kind: 'video' as const }));
    expect(weekPlanCharge(images(7), 5, prices)).toEqual({ items: 7, videos: 0, total: 28, perItemImage: 3, perItemVideo: 5 });
    expect(weekPlanCharge(images(28), 5, prices)).toEqual({ items: 28, videos: 0, total: 112, perItemImage: 3, perItemVideo: 5 });
    // Seven 5-second TikTok shorts: 7 × (1 + 5).
    expect(weekPlanCharge(videos(7), 5, prices)).toMatchObject({ videos: 7, total: 42 });
    expect(weekPlanCharge([...images(4), ...videos(3)], 5, { ...prices, videoPerSecond: 2 })).toMatchObject({ total: 7 + 12 + 30, perItemVideo: 10 });
  });

  it('video is charged per second; variants per request', () => {
    expect(videoCharge(8, prices)).toBe(8);
    expect(videoCharge(60, { ...prices, videoPerSecond: 2 })).toBe(120);
    expect(variantsCharge(prices)).toBe(1);
  });
});
