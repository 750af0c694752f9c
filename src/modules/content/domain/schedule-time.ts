import { AppError, localParts, zonedInstant } from '../../../core/index.js';

export const MAX_CALENDAR_DAYS = 62;

const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;
/** A calendar date as days since the epoch, or null when it is not a real `YYYY-MM-DD` date. */
export function parseDate(value: string): number | null {
  const m = DATE_SHAPE.exec(value);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return ms / DAY_MS;
}

export function formatDate(epochDay: number): string {
  return new Date(epochDay * DAY_MS).toISOString().slice(0, 10);
}

/** The instant a wall-clock time on a date happens in a zone (a skipped DST hour resolves forward). */
export function zonedTime(epochDay: number, hour: number, minute: number, timeZone: string): Date {
  const d = new Date(epochDay * DAY_MS);
  return zonedInstant({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() }, hour * 60 + minute, timeZone);
}

/** The local date (days since the epoch) of an instant in a zone. */
export function localDay(instant: Date, timeZone: string): number {
  const p = localParts(instant, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day) / DAY_MS;
}

/**
 * The instant that puts an item on the calendar: when it was published, else when it is planned
 * (null: not on the calendar). A published item shows on its publish day, planned or not.
 */
export function calendarInstant(item: { publishedAt: Date | null; plannedFor: Date | null }): Date | null {
  return item.publishedAt ?? item.plannedFor;
}

/** The local day an item shows on in the calendar, or null when it shows on none. */
export function calendarDay(item: { publishedAt: Date | null; plannedFor: Date | null }, timeZone: string): number | null {
  const at = calendarInstant(item);
  return at ? localDay(at, timeZone) : null;
}

/** Monday of the local week that contains `now`. */
export function startOfWeek(now: Date, timeZone: string): number {
  const today = localDay(now, timeZone);
  const weekday = (new Date(today * DAY_MS).getUTCDay() + 6) % 7;
  return today - weekday;
}

/**
 * Local posting times for `postsPerDay` items a day: spread over the day's good hours, at least
 * four hours apart, so the publishing context can keep them on the same platform.
 */
const POSTING_HOURS: Readonly<Record<number, readonly number[]>> = {
  1: [12],
  2: [10, 18],
  3: [9, 13, 19],
  4: [8, 12, 16, 20],
};

export function postingHours(postsPerDay: number): readonly number[] {
  const hours = POSTING_HOURS[postsPerDay];
  if (!hours) throw new Error(`posts per day must be 1 to 4, got ${postsPerDay}`);
  return hours;
}

/** When the `slot`-th post of `day` (zero-based, from `weekStart`) is planned, as an instant. */
export function plannedFor(weekStart: number, day: number, slot: number, postsPerDay: number, timeZone: string): Date {
  return zonedTime(weekStart + day, postingHours(postsPerDay)[slot], 0, timeZone);
}

export interface CalendarRange {
  from: number;
  to: number;
  /** Instants bounding the range in the zone: [start of `from`, start of the day after `to`). */
  startsAt: Date;
  endsBefore: Date;
}

/** The calendar's days: both given, or this local week; at most 62 days, `from` not after `to`. */
export function calendarRange(from: string | undefined, to: string | undefined, timeZone: string, now: Date): CalendarRange {
  const weekStart = startOfWeek(now, timeZone);
  const f = from === undefined ? (to === undefined ? weekStart : parseDateOrFail(to, 'to') - 6) : parseDateOrFail(from, 'from');
  const t = to === undefined ? f + 6 : parseDateOrFail(to, 'to');
  if (t < f) throw invalid('to', 'to must not be before from');
  if (t - f + 1 > MAX_CALENDAR_DAYS) throw invalid('to', `the calendar spans at most ${MAX_CALENDAR_DAYS} days`);
  return { from: f, to: t, startsAt: zonedTime(f, 0, 0, timeZone), endsBefore: zonedTime(t + 1, 0, 0, timeZone) };
}

function parseDateOrFail(value: string, field: string): number {
  const day = parseDate(value);
  if (day === null) throw invalid(field, `${field} must be a date (YYYY-MM-DD)`);
  return day;
}

function invalid(field: string, message: string): AppError {
  return new AppError('validation_failed', message, [{ field, message }]);
}
