import type { PostMetrics } from '../../publishing/index.js';

/**
 * (likes + comments + shares + saves) / reach, where reach is the larger of impressions and views:
 * platforms count one or the other (or both, views ≤ impressions), and the larger is the audience
 * the post reached. Null when there is no reach to divide by or no interaction is reported at all,
 * so a platform that reports nothing is not ranked as 0 %. Rounded to 6 decimals (the column's scale).
 */
export function engagementRate(m: PostMetrics): number | null {
  const reach = Math.max(m.impressions ?? 0, m.views ?? 0);
  if (reach <= 0) return null;
  const parts = [m.likes, m.comments, m.shares, m.saves];
  if (parts.every((p) => p === null)) return null;
  const interactions = parts.reduce<number>((sum, p) => sum + (p ?? 0), 0);
  return Math.round((interactions / reach) * 1e6) / 1e6;
}
