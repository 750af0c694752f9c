import type { ContentType } from './content-item.js';

/** The prices this context charges (a subset of the configured credit prices, contract §3). */
export interface ContentPrices {
  imagePerImage: number;
  captionVariants: number;
  weekPlanPerItem: number;
  videoPerSecond: number;
}

export const CAROUSEL_IMAGES = 3;
export const DAYS_PER_WEEK = 7;

/** A carousel is several images; every other image item is one. */
export function imageCount(contentType: ContentType): number {
  return contentType === 'carousel' ? CAROUSEL_IMAGES : 1;
}

export function imageCharge(contentType: ContentType, prices: ContentPrices): number {
  return imageCount(contentType) * prices.imagePerImage;
}

export function videoCharge(durationSeconds: number, prices: ContentPrices): number {
  return durationSeconds * prices.videoPerSecond;
}

export interface WeekPlanCharge {
  items: number;
  videos: number;
  total: number;
  perItemImage: number;
  perItemVideo: number;
}

/**
 * A week plan is paid up front: every planned item costs its planning price plus its media, one
 * image (a week plan makes no carousels) or, for a video slot, a video of `videoSeconds`.
 */
export function weekPlanCharge(slots: ReadonlyArray<{ kind: 'image' | 'video' }>, videoSeconds: number, prices: ContentPrices): WeekPlanCharge {
  const videos = slots.filter((s) => s.kind === 'video').length;
  const perItemVideo = videoCharge(videoSeconds, prices);
  const media = (slots.length - videos) * prices.imagePerImage + videos * perItemVideo;
  return { items: slots.length, videos, total: slots.length * prices.weekPlanPerItem + media, perItemImage: prices.imagePerImage, perItemVideo };
}

export function variantsCharge(prices: ContentPrices): number {
  return prices.captionVariants;
}
