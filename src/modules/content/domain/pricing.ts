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

/**
 * A week plan is paid up front: every planned item (one image each; a week plan makes no
 * carousels) costs its planning price plus its image.
 */
export function weekPlanCharge(postsPerDay: number, prices: ContentPrices): { items: number; total: number; perItemImage: number } {
  const items = DAYS_PER_WEEK * postsPerDay;
  return { items, total: items * (prices.weekPlanPerItem + prices.imagePerImage), perItemImage: prices.imagePerImage };
}

export function variantsCharge(prices: ContentPrices): number {
  return prices.captionVariants;
}
