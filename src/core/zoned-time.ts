/** Wall-clock arithmetic in an IANA timezone with nothing but Intl. */

const FORMATTERS = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = FORMATTERS.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    FORMATTERS.set(timeZone, f);
  }
  return f;
}

export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

export function isTimeZone(value: string): boolean {
  try {
    formatter(value);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock fields of an instant in `timeZone`. */
export function localParts(at: Date, timeZone: string): LocalDate & { hour: number; minute: number } {
  const parts = Object.fromEntries(formatter(timeZone).formatToParts(at).map((p) => [p.type, p.value]));
  return { year: +parts.year, month: +parts.month, day: +parts.day, hour: +parts.hour, minute: +parts.minute };
}

/** Minutes `timeZone` is ahead of UTC at `at`. */
function offsetMinutes(at: Date, timeZone: string): number {
  const p = localParts(at, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute);
  return Math.round((asUtc - Math.floor(at.getTime() / 60_000) * 60_000) / 60_000);
}

/**
 * The instant a wall-clock time has in `timeZone`. A time skipped by a DST change resolves to the
 * same wall time after the change; an ambiguous one to its first occurrence.
 */
export function zonedInstant(date: LocalDate, minutesOfDay: number, timeZone: string): Date {
  const wall = Date.UTC(date.year, date.month - 1, date.day, 0, minutesOfDay);
  // The zone's offset a day either side brackets any change; keep the offsets that map back to this wall time.
  const before = offsetMinutes(new Date(wall - 86_400_000), timeZone);
  const after = offsetMinutes(new Date(wall + 86_400_000), timeZone);
  const fits = [...new Set([before, after])]
    .map((o) => wall - o * 60_000)
    .filter((t) => offsetMinutes(new Date(t), timeZone) * 60_000 === wall - t);
  return new Date(fits.length > 0 ? Math.min(...fits) : wall - before * 60_000);
}

/** The calendar date `days` after `date`. */
export function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

export function dateKey(date: LocalDate): string {
  return `${date.year}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}
