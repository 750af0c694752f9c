import type { WeekPlanRequest } from '../../../application/ports/index.js';

/** One post of a week plan before it is written: when, where, what kind, and its trend if any. */
export interface WeekSlot {
  day: number;
  slot: number;
  platform: string;
  contentType: string;
  trend?: string;
}

/** The kinds of post each platform can publish (contract §6), first choice first. */
const TYPES_BY_PLATFORM: Record<string, string[]> = {
  instagram: ['single', 'carousel', 'reel', 'story'],
  photo_share: ['single', 'carousel', 'reel', 'story'],
  tiktok: ['short', 'video'],
  short_video: ['short', 'video'],
  youtube: ['short', 'video'],
  video_share: ['short', 'video'],
  twitter: ['single'],
  x: ['single'],
  microblog: ['single'],
  pinterest: ['single', 'carousel'],
  pinboard: ['single', 'carousel'],
};

export function contentTypeFor(platform: string, nth: number): string {
  const types = TYPES_BY_PLATFORM[platform.toLowerCase()] ?? ['single'];
  return types[nth % types.length];
}

/**
 * The plan's skeleton, decided in code so every adapter plans the same week: `days ×
 * postsPerDay` slots, platforms round-robin, the caller's content types (else one each platform can publish), and the
 * trending topics woven into every other post.
 */
export function weekSlots(req: WeekPlanRequest): WeekSlot[] {
  const platforms = req.platforms.length ? req.platforms : ['instagram'];
  const seenOnPlatform = new Map<string, number>();
  const slots: WeekSlot[] = [];
  for (let day = 0; day < req.days; day++) {
    for (let slot = 0; slot < req.postsPerDay; slot++) {
      const index = slots.length;
      const platform = platforms[index % platforms.length];
      const nth = seenOnPlatform.get(platform) ?? 0;
      seenOnPlatform.set(platform, nth + 1);
      const trend = req.trendingTopics.length && index % 2 === 0 ? req.trendingTopics[(index / 2) % req.trendingTopics.length] : undefined;
      const contentType = req.contentTypes?.[index] ?? contentTypeFor(platform, nth);
      slots.push({ day, slot, platform, contentType, ...(trend ? { trend } : {}) });
    }
  }
  return slots;
}
