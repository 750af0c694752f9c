import { localParts } from '../../../core/index.js';

export interface MeasuredPost {
  publishedAt: Date;
  engagementRate: number;
}

export interface HourSlot {
  /** 0 = Sunday, as `Date.getDay`. */
  weekday: number;
  hour: number;
  /** Mean engagement rate of the posts published in that weekday × hour. */
  score: number;
}

/** The weekday of a calendar date (0 = Sunday). */
function weekdayOf(p: { year: number; month: number; day: number }): number {
  return new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay();
}

/**
 * Weekday × hour slots in `timeZone` (the character's posting zone) ranked by the mean engagement
 * of the posts published in them, best first; ties by more posts, then earlier in the week.
 */
export function rankHours(posts: readonly MeasuredPost[], timeZone: string): HourSlot[] {
  const cells = new Map<number, { weekday: number; hour: number; sum: number; n: number }>();
  for (const post of posts) {
    const local = localParts(post.publishedAt, timeZone);
    const weekday = weekdayOf(local);
    const key = weekday * 24 + local.hour;
    const cell = cells.get(key) ?? { weekday, hour: local.hour, sum: 0, n: 0 };
    cell.sum += post.engagementRate;
    cell.n += 1;
    cells.set(key, cell);
  }
  return [...cells.values()]
    .sort((a, b) => b.sum / b.n - a.sum / a.n || b.n - a.n || a.weekday * 24 + a.hour - (b.weekday * 24 + b.hour))
    .map((c) => ({ weekday: c.weekday, hour: c.hour, score: Math.round((c.sum / c.n) * 1e6) / 1e6 }));
}
