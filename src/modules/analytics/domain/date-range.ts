import { AppError } from '../../../core/index.js';

/** An inclusive range of calendar days (UTC), as `YYYY-MM-DD`. */
export interface DayRange {
  from: string;
  to: string;
}

export const DEFAULT_RANGE_DAYS = 30;
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC calendar day of an instant. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** A real calendar day (2025-02-30 is not one), as UTC midnight; null for anything else. */
export function parseDay(value: string): Date | null {
  if (!DAY.test(value)) return null;
  const at = new Date(`${value}T00:00:00.000Z`);
  return Number.isNaN(at.getTime()) || dayOf(at) !== value ? null : at;
}

function invalid(field: string, message: string): AppError {
  return new AppError('validation_failed', message, [{ field, message }]);
}

/**
 * The range a request asks for: both ends optional (default: the last 30 days up to today, or 30
 * days either side of the one end given), `to` not before `from`, at most 366 days counted inclusively.
 */
export function resolveRange(input: { from?: string; to?: string }, now: Date): DayRange {
  const from = input.from === undefined ? null : parseDay(input.from);
  const to = input.to === undefined ? null : parseDay(input.to);
  if (input.from !== undefined && !from) throw invalid('from', 'from must be a date YYYY-MM-DD');
  if (input.to !== undefined && !to) throw invalid('to', 'to must be a date YYYY-MM-DD');
  const span = (DEFAULT_RANGE_DAYS - 1) * DAY_MS;
  const end = to ?? (from ? new Date(from.getTime() + span) : parseDay(dayOf(now))!);
  const start = from ?? new Date(end.getTime() - span);
  if (end < start) throw invalid('to', 'to must not be before from');
  if ((end.getTime() - start.getTime()) / DAY_MS + 1 > MAX_RANGE_DAYS) throw invalid('to', `the range spans at most ${MAX_RANGE_DAYS} days`);
  return { from: dayOf(start), to: dayOf(end) };
}

/** The instants bounding a range: [start of `from`, start of the day after `to`). */
export function rangeInstants(range: DayRange): { start: Date; end: Date } {
  return { start: parseDay(range.from)!, end: new Date(parseDay(range.to)!.getTime() + DAY_MS) };
}
