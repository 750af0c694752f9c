import { addDays, dateKey, localParts, zonedInstant, type LocalDate, type Platform } from '../../../core/index.js';

/** Good posting hours, local time: mid-morning, lunch, after work, evening (4 h apart). */
export const DEFAULT_SLOT_MINUTES: readonly number[] = [9 * 60, 13 * 60, 17 * 60, 21 * 60];
/** Measured posts on a platform before its history decides the hours (contract §15). */
export const HISTORY_MIN_POSTS = 10;
/** How many of the best hours a day offers. */
const BEST_HOURS_PER_DAY = 4;
/** Posts of one platform are at least this far apart. */
export const MIN_GAP_MS = 4 * 3600_000;
/** Platform caps per local day (contract §8); the others are bounded by the gap alone. */
const DAILY_CAP: Partial<Record<Platform, number>> = { youtube: 6, pinterest: 12 };
/**
 * Each platform posts at its own minute past the slot, so one item on several platforms goes out
 * staggered rather than everywhere at once.
 */
const STAGGER_MINUTES: Record<Platform, number> = { instagram: 0, tiktok: 20, twitter: 40, youtube: 60, pinterest: 80 };

export interface SlotTarget {
  contentId: string;
  /** The platforms to post the item to: the spelling kept for the post, and the platform it means. */
  platforms: ReadonlyArray<{ name: string; platform: Platform }>;
  /** The local day the item is planned for (its `planned_for`), if any: it is posted on that day only. */
  day?: LocalDate | null;
}

export interface Slot {
  contentId: string;
  platform: string;
  platformKey: Platform;
  at: Date;
}

/** A weekday (0 Sunday … 6 Saturday, local) × hour's engagement on one platform, from past posts. */
export interface HourScore {
  weekday: number;
  hour: number;
  score: number;
}

export interface PostingHistory {
  measuredPosts: number;
  hours: readonly HourScore[];
}

/** Where a platform's hours came from: its own measured posts, or the defaults. */
export type SlotSource = 'history' | 'defaults';

/** The hours (local minutes, best first) to try on a weekday, per platform. */
export type SlotHours = (weekday: number) => readonly number[];

export interface SlotPlan {
  targets: readonly SlotTarget[];
  /** Per platform, the hours to try; a platform without an entry takes the defaults. */
  hours?: Partial<Record<Platform, SlotHours>>;
  /** Posts already planned or made on the character's platforms; new ones keep their distance. */
  existing: ReadonlyArray<{ platform: Platform; at: Date }>;
  /** No slot before this instant. */
  notBefore: Date;
  days: number;
  timezone: string;
}

/** What one platform already holds: instants in order (for the gap) and posts per local day (for the cap). */
class PlatformCalendar {
  private readonly times: number[] = [];
  private readonly perDay = new Map<string, number>();

  constructor(private readonly timezone: string) {}

  take(at: number): void {
    this.times.splice(this.indexOf(at), 0, at);
    const key = dateKey(localParts(new Date(at), this.timezone));
    this.perDay.set(key, (this.perDay.get(key) ?? 0) + 1);
  }

  postsOn(day: LocalDate): number {
    return this.perDay.get(dateKey(day)) ?? 0;
  }

  /** Whether `at` keeps MIN_GAP_MS from both neighbours. */
  isFree(at: number): boolean {
    const i = this.indexOf(at);
    const prev = this.times[i - 1];
    const next = this.times[i];
    return (prev === undefined || at - prev >= MIN_GAP_MS) && (next === undefined || next - at >= MIN_GAP_MS);
  }

  /** The first index whose time is >= at (binary search). */
  private indexOf(at: number): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid] < at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * Gives each item a slot on each of its platforms, in order, within `days` local days from
 * `notBefore`: the best free hour of its planned day when it has one, else the earliest good slot.
 * Planned items choose first, so unplanned ones never take their day's hours. An item planned for
 * a day before the window is late, and takes the earliest slot like an unplanned one. Items that
 * do not fit (their day full or past the window) get no slot.
 */
export function allocateSlots(plan: SlotPlan): Slot[] {
  const calendars = new Map<Platform, PlatformCalendar>();
  const calendarOf = (platform: Platform): PlatformCalendar => {
    let c = calendars.get(platform);
    if (!c) calendars.set(platform, (c = new PlatformCalendar(plan.timezone)));
    return c;
  };
  for (const e of plan.existing) calendarOf(e.platform).take(e.at.getTime());
  const firstDay = localParts(plan.notBefore, plan.timezone);
  const planned = (t: SlotTarget) => !!t.day && dateKey(t.day) >= dateKey(firstDay);
  const ordered = [...plan.targets.filter(planned), ...plan.targets.filter((t) => !planned(t))];
  const slots: Slot[] = [];
  for (const target of ordered) {
    const days = planned(target) ? [target.day!] : Array.from({ length: plan.days }, (_, d) => addDays(firstDay, d));
    for (const { name, platform } of target.platforms) {
      const calendar = calendarOf(platform);
      const at = firstFreeSlot(platform, calendar, days, inWindow(firstDay, plan.days), plan);
      if (!at) continue;
      calendar.take(at.getTime());
      slots.push({ contentId: target.contentId, platform: name, platformKey: platform, at });
    }
  }
  return slots;
}

/** Whether a local day lies within `days` days from `firstDay`. */
function inWindow(firstDay: LocalDate, days: number): (day: LocalDate) => boolean {
  const first = dateKey(firstDay);
  const last = dateKey(addDays(firstDay, days - 1));
  return (day) => dateKey(day) >= first && dateKey(day) <= last;
}

function firstFreeSlot(platform: Platform, calendar: PlatformCalendar, days: readonly LocalDate[], allowed: (day: LocalDate) => boolean, plan: SlotPlan): Date | null {
  const cap = DAILY_CAP[platform] ?? Infinity;
  for (const day of days) {
    if (!allowed(day) || calendar.postsOn(day) >= cap) continue;
    for (const minutes of plan.hours?.[platform]?.(weekdayOf(day)) ?? DEFAULT_SLOT_MINUTES) {
      const at = zonedInstant(day, minutes + STAGGER_MINUTES[platform], plan.timezone);
      if (at >= plan.notBefore && calendar.isFree(at.getTime())) return at;
    }
  }
  return null;
}

function weekdayOf(day: LocalDate): number {
  return new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay();
}

/**
 * The hours a platform's history recommends, once it has HISTORY_MIN_POSTS measured posts: on each
 * weekday its best-scoring hours (best first), filled up with its best hours over the whole week;
 * null before that, and the planner keeps the defaults.
 */
export function hoursFromHistory(history: PostingHistory | null): SlotHours | null {
  if (!history || history.measuredPosts < HISTORY_MIN_POSTS || history.hours.length === 0) return null;
  const weekly = new Map<number, number>();
  for (const h of history.hours) weekly.set(h.hour, (weekly.get(h.hour) ?? 0) + h.score);
  const overall = rankHours([...weekly].map(([hour, score]) => ({ hour, score })));
  return (weekday) => {
    const own = rankHours(history.hours.filter((h) => h.weekday === weekday));
    return [...new Set([...own, ...overall])].slice(0, BEST_HOURS_PER_DAY).map((hour) => hour * 60);
  };
}

function rankHours(scores: ReadonlyArray<{ hour: number; score: number }>): number[] {
  return [...scores].filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.hour - b.hour).map((s) => s.hour);
}
