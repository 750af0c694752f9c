import { AppError } from '../../../core/index.js';

export const REVENUE_SOURCES = ['affiliate', 'brand_deal', 'subscription'] as const;
export type RevenueSource = (typeof REVENUE_SOURCES)[number];

/** One amount a character earned, in the currency's minor units (cents). */
export interface RevenueEntry {
  id: string;
  workspaceId: string;
  characterId: string;
  source: RevenueSource;
  amount: number;
  currency: string;
  occurredAt: Date;
  note: string | null;
  linkId: string | null;
  createdAt: Date;
}

export type BySource = Record<RevenueSource, number>;

export const MAX_NOTE_LENGTH = 500;
/** The largest amount one entry may hold (fits PostgreSQL's bigint and JavaScript's safe integers with room to sum). */
export const MAX_AMOUNT = 1_000_000_000_000;
/** How far in the future an `occurred_at` may lie: clocks of the callers drift. */
export const FUTURE_SKEW_MS = 5 * 60_000;
/** The summary's default span when `from` is not given (Influgen's default). */
export const DEFAULT_SUMMARY_DAYS = 90;
const DAY_MS = 86_400_000;

export function emptyBySource(): BySource {
  return { affiliate: 0, brand_deal: 0, subscription: 0 };
}

function invalid(field: string, message: string): AppError {
  return new AppError('validation_failed', `${message[0].toUpperCase()}${message.slice(1)}.`, [{ field, message }]);
}

/** The entry's currency, upper case, when it is the workspace's; else 400 naming the one accepted. */
export function acceptCurrency(raw: string, workspaceCurrency: string): string {
  const currency = raw.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) throw invalid('currency', 'currency must be an ISO 4217 code of three letters');
  if (currency !== workspaceCurrency) {
    throw invalid('currency', `currency must be the workspace's currency, ${workspaceCurrency}: revenue is summed in one currency, so convert the amount before recording it`);
  }
  return currency;
}

/** `occurred_at` may not lie in the future beyond a small clock skew. */
export function acceptOccurredAt(at: Date, now: Date): Date {
  if (at.getTime() > now.getTime() + FUTURE_SKEW_MS) throw invalid('occurred_at', 'occurred_at must not be in the future');
  return at;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A range bound: an ISO 8601 date-time with a zone (`2025-01-31T12:00:00Z`), or a date
 * (`2025-01-31`, UTC). A date as `from` is the start of that day; as `to`, the end of it (the start
 * of the next day), so `from=2025-01-01&to=2025-01-31` is the whole of January. `name` is the
 * field errors name (`occurred_at` reads as a `from`: a date is the start of that day).
 */
export function parseBound(field: 'from' | 'to', raw: string, name: string = field): Date {
  if (DATE_ONLY.test(raw)) {
    const day = new Date(`${raw}T00:00:00.000Z`);
    if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== raw) throw invalid(name, `${name} must be a real date`);
    return field === 'to' ? new Date(day.getTime() + DAY_MS) : day;
  }
  const at = DATE_TIME.test(raw) ? new Date(raw) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime())) throw invalid(name, `${name} must be an ISO 8601 date (YYYY-MM-DD) or date-time with a zone`);
  return at;
}

/** A half-open span of time: `start` included, `end` not. */
export interface TimeRange {
  start: Date;
  end: Date;
}

/**
 * The range a summary covers: `to` defaults to now, `from` to 90 days before `to`; `from` must
 * come before `to`.
 */
export function summaryRange(input: { from?: string; to?: string }, now: Date): TimeRange {
  const end = input.to === undefined ? now : parseBound('to', input.to);
  const start = input.from === undefined ? new Date(end.getTime() - DEFAULT_SUMMARY_DAYS * DAY_MS) : parseBound('from', input.from);
  if (start.getTime() >= end.getTime()) throw invalid('to', 'to must be after from');
  return { start, end };
}

/** An optional filter range (a list): either end may be absent; when both are given, from before to. */
export function filterRange(input: { from?: string; to?: string }): { start?: Date; end?: Date } {
  const start = input.from === undefined ? undefined : parseBound('from', input.from);
  const end = input.to === undefined ? undefined : parseBound('to', input.to);
  if (start && end && start.getTime() >= end.getTime()) throw invalid('to', 'to must be after from');
  return { start, end };
}
