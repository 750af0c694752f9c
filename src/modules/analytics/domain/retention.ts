/**
 * What analytics keeps (run by the sync job after each workspace's sync):
 * - post snapshots: one per post per day for 90 days; older ones are compacted to one per post per
 *   ISO week (the latest of that week), so long-term curves stay at weekly resolution;
 * - follower days: two years, then dropped;
 * - the latest metrics of a post: as long as the post exists (it is what the routes read).
 */
export const DAILY_SNAPSHOT_DAYS = 90;
export const FOLLOWER_DAYS_KEPT = 730;
const DAY_MS = 86_400_000;

export interface RetentionCutoffs {
  /** Snapshots of days before this are compacted to weekly. */
  weeklyBefore: string;
  /** Follower days before this are dropped. */
  followersFrom: string;
}

export function retentionCutoffs(now: Date): RetentionCutoffs {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { weeklyBefore: day(today - DAILY_SNAPSHOT_DAYS * DAY_MS), followersFrom: day(today - FOLLOWER_DAYS_KEPT * DAY_MS) };
}

/** The Monday (ISO week start) of a `YYYY-MM-DD` day, the same week PostgreSQL's `date_trunc('week', …)` names. */
export function weekOf(day: string): string {
  const at = new Date(`${day}T00:00:00.000Z`);
  const sinceMonday = (at.getUTCDay() + 6) % 7;
  return new Date(at.getTime() - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The snapshot days of one post the compaction drops: before the cutoff, every day that is not the
 * latest of its week. The SQL sweep (`AnalyticsRepository.compact`) implements this same rule.
 */
export function snapshotDaysToDrop(days: readonly string[], cutoffs: RetentionCutoffs): string[] {
  const latestOfWeek = new Map<string, string>();
  for (const d of days) {
    if (d >= cutoffs.weeklyBefore) continue;
    const w = weekOf(d);
    if ((latestOfWeek.get(w) ?? '') < d) latestOfWeek.set(w, d);
  }
  return days.filter((d) => d < cutoffs.weeklyBefore && latestOfWeek.get(weekOf(d)) !== d);
}
