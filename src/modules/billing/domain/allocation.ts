/** Percentages of a period's allocation at which the workspace is told its credits run low. */
export const LOW_CREDIT_THRESHOLDS = [25, 10, 0] as const;

/** A workspace's allocation as a movement left it. */
export interface AllocationState {
  granted: number;
  remaining: number;
  /** The grant this period came from (alerts are once per threshold per period); null before the first. */
  period: string | null;
  /** When the period ends and the allocation resets (unknown to some readers). */
  resetsAt?: Date | null;
}

/**
 * The thresholds `remaining` is at or below: 25 % and 10 % of the grant (whole credits, rounded
 * down), and 0. None without an allocation.
 */
export function thresholdsReached(state: AllocationState): number[] {
  if (state.granted <= 0 || state.period === null) return [];
  return LOW_CREDIT_THRESHOLDS.filter((t) => state.remaining <= Math.floor((state.granted * t) / 100));
}

/**
 * The end of the `n`th monthly period from `anchor` (n = 1: a month after it), on the anchor's day
 * of the month, or the month's last day when it has no such day (31 January → 28 or 29 February →
 * 31 March: each end is computed from the anchor, so a short month never shifts the next one).
 */
export function periodEnd(anchor: Date, n: number): Date {
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + n;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(y, m, Math.min(anchor.getUTCDate(), lastDay), anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()),
  );
}

/** The first period end after `now` (the period `now` falls in ends there), and its number. */
export function currentPeriodEnd(anchor: Date, now: Date): { n: number; end: Date } {
  let n = Math.max(1, (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + now.getUTCMonth() - anchor.getUTCMonth());
  while (n > 1 && periodEnd(anchor, n - 1) > now) n -= 1;
  while (periodEnd(anchor, n) <= now) n += 1;
  return { n, end: periodEnd(anchor, n) };
}
