import { AppError } from '../../../core/index.js';
import { clampText, isContentType, LIMITS, type ContentType } from './content-item.js';
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
  imagePrompt: string;
  caption: string;
  hashtags: string[];
  cta: string;
  plannedFor: Date;
}

/**
 * Every item was paid as one image, so a planned carousel becomes a single image and an unknown
 * type a single; the other types keep what the planner chose.
 */
export function plannedContentType(planned: string): ContentType {
  if (!isContentType(planned) || planned === 'carousel') return 'single';
  return planned;
}

/**
 * Turns the planner's posts into the week's items: seven days of `postsPerDay` slots in the
 * character's zone, platforms taken round-robin in slot order (whatever the planner said), and
 * the planner's posts in (day, slot) order. Fewer posts than slots is a provider failure.
 */
export function planWeekItems(posts: readonly PlannedPostInput[], spec: WeekPlanSpec): PlannedItem[] {
  const needed = DAYS_PER_WEEK * spec.postsPerDay;
  const ordered = [...posts].sort((a, b) => a.day - b.day || a.slot - b.slot).slice(0, needed);
  if (ordered.length < needed) {
    throw new AppError('upstream_failed', `The planner returned ${ordered.length} of ${needed} posts.`);
  }
  if (spec.platforms.length === 0) throw new Error('a week plan needs at least one platform');
  return ordered.map((post, k) => {
    const day = Math.floor(k / spec.postsPerDay);
    const slot = k % spec.postsPerDay;
    return {
      planIndex: k,
      platform: spec.platforms[k % spec.platforms.length],
      contentType: plannedContentType(post.contentType),
      imagePrompt: String(post.imagePrompt ?? '').slice(0, LIMITS.prompt),
      ...clampText(post),
      plannedFor: plannedFor(spec.weekStart, day, slot, spec.postsPerDay, spec.timeZone),
    };
  });
}
