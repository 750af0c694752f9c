import { AppError, canonicalPlatform, isPlatformName, needsVideo, type Platform } from '../../../core/index.js';
import { clampText, LIMITS, type ContentType, type GenerationKind } from './content-item.js';
import { VIDEO_DEFAULT_ASPECT, VIDEO_MIN_SECONDS } from './platforms.js';
import { DAYS_PER_WEEK } from './pricing.js';
import { plannedFor } from './schedule-time.js';

/** A post as the text provider planned it (the port's `PlannedPost`, restated so the domain stays pure). */
export interface PlannedPostInput {
  day: number;
  slot: number;
  platform: string;
  contentType: string;
  imagePrompt: string;
  caption: string;
  hashtags: string[];
  cta: string;
}

export interface WeekPlanSpec {
  weekStart: number;
  postsPerDay: number;
  platforms: readonly string[];
  timeZone: string;
}

export interface PlannedItem {
  planIndex: number;
  platform: string;
  contentType: ContentType;
  kind: GenerationKind;
  imagePrompt: string;
  caption: string;
  hashtags: string[];
  cta: string;
  plannedFor: Date;
}

/** One post of the week before it is written: where it goes, what kind of post, and what it is made of. */
export interface WeekSlot {
  platform: string;
  contentType: ContentType;
  kind: GenerationKind;
}

/**
 * What a week plan posts on each platform, in turn: the Nth post on a platform takes the Nth
 * entry, round and round. Every type is one the platform publishes; a week plan makes no
 * carousels. Reels and shorts are videos (the media rules say a platform refuses them as images).
 */
const WEEK_TYPES: Readonly<Record<Platform, readonly ContentType[]>> = {
  instagram: ['single', 'reel', 'story'],
  tiktok: ['short'],
  youtube: ['short'],
  twitter: ['single'],
  pinterest: ['single'],
};

/** A week plan's videos: the shortest video the product makes, vertical, so a plan stays affordable. */
export const WEEK_VIDEO = { durationSeconds: VIDEO_MIN_SECONDS, aspectRatio: VIDEO_DEFAULT_ASPECT } as const;

/**
 * The week's skeleton, decided from the request alone so its price is known when it is accepted:
 * `7 × postsPerDay` slots, platforms round-robin in slot order, each slot's type from WEEK_TYPES,
 * and video where the platform wants video for that type.
 */
export function weekSlots(postsPerDay: number, platforms: readonly string[]): WeekSlot[] {
  if (platforms.length === 0) throw new Error('a week plan needs at least one platform');
  const seen = new Map<Platform, number>();
  return Array.from({ length: DAYS_PER_WEEK * postsPerDay }, (_, k): WeekSlot => {
    const platform = platforms[k % platforms.length];
    if (!isPlatformName(platform)) return { platform, contentType: 'single', kind: 'image' };
    const canonical = canonicalPlatform(platform);
    const nth = seen.get(canonical) ?? 0;
    seen.set(canonical, nth + 1);
    const types = WEEK_TYPES[canonical];
    const contentType = types[nth % types.length];
    return { platform, contentType, kind: needsVideo(canonical, contentType) ? 'video' : 'image' };
  });
}

/**
 * Turns the planner's posts into the week's items: seven days of `postsPerDay` slots in the
 * character's zone, platform and type from the week's skeleton (whatever the planner said; the
 * week was paid for that skeleton), and the planner's text in (day, slot) order. Fewer posts
 * than slots is a provider failure.
 */
export function planWeekItems(posts: readonly PlannedPostInput[], spec: WeekPlanSpec): PlannedItem[] {
  const needed = DAYS_PER_WEEK * spec.postsPerDay;
  const ordered = [...posts].sort((a, b) => a.day - b.day || a.slot - b.slot).slice(0, needed);
  if (ordered.length < needed) {
    throw new AppError('upstream_failed', `The planner returned ${ordered.length} of ${needed} posts.`);
  }
  const slots = weekSlots(spec.postsPerDay, spec.platforms);
  return ordered.map((post, k) => {
    const day = Math.floor(k / spec.postsPerDay);
    const slot = k % spec.postsPerDay;
    return {
      planIndex: k,
      ...slots[k],
      imagePrompt: String(post.imagePrompt ?? '').slice(0, LIMITS.prompt),
      ...clampText(post),
      plannedFor: plannedFor(spec.weekStart, day, slot, spec.postsPerDay, spec.timeZone),
    };
  });
}
