import { AppError } from '../../../core/index.js';

/** One counted click: the link and the UTC day it happened on. */
export interface ClickCell {
  linkId: string;
  day: string;
}

/** Counts by link and day, as kept between flushes: `${linkId}|${day}` → clicks. */
export type ClickCounts = ReadonlyMap<string, number>;

/** The UTC calendar day of an instant, `YYYY-MM-DD`. */
export function clickDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

export function clickField(linkId: string, day: string): string {
  return `${linkId}|${day}`;
}

/** The cell a stored field names; null for anything that is not one (never written by us). */
export function parseClickField(field: string): ClickCell | null {
  const m = /^([a-z]+_[0-9A-Z]{26})\|(\d{4}-\d{2}-\d{2})$/.exec(field);
  return m ? { linkId: m[1], day: m[2] } : null;
}

/** Adds two sets of counts (a failed batch merged into the next one). */
export function mergeCounts(a: ClickCounts, b: ClickCounts): Map<string, number> {
  const out = new Map(a);
  for (const [k, v] of b) out.set(k, (out.get(k) ?? 0) + v);
  return out;
}

export const DEFAULT_SERIES_DAYS = 30;
export const MAX_SERIES_DAYS = 366;
const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function parseDay(field: string, raw: string): Date {
  const at = DAY.test(raw) ? new Date(`${raw}T00:00:00.000Z`) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime()) || clickDay(at) !== raw) {
    throw new AppError('validation_failed', `${field} must be a date YYYY-MM-DD.`, [{ field, message: `${field} must be a date YYYY-MM-DD` }]);
  }
  return at;
}

/**
 * The days of a click series, both ends included: default the last 30 days up to today (UTC),
 * `to` not before `from`, at most 366 days.
 */
export function seriesDays(input: { from?: string; to?: string }, now: Date): string[] {
  const end = input.to === undefined ? parseDay('to', clickDay(now)) : parseDay('to', input.to);
  const start = input.from === undefined ? new Date(end.getTime() - (DEFAULT_SERIES_DAYS - 1) * DAY_MS) : parseDay('from', input.from);
  if (end < start) throw new AppError('validation_failed', 'to must not be before from.', [{ field: 'to', message: 'to must not be before from' }]);
  const count = Math.round((end.getTime() - start.getTime()) / DAY_MS) + 1;
  if (count > MAX_SERIES_DAYS) throw new AppError('validation_failed', `The range spans at most ${MAX_SERIES_DAYS} days.`, [{ field: 'to', message: `the range spans at most ${MAX_SERIES_DAYS} days` }]);
  return Array.from({ length: count }, (_, i) => clickDay(new Date(start.getTime() + i * DAY_MS)));
}
