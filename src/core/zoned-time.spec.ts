import { describe, expect, it } from '@jest/globals';
import { addDays, dateKey, isTimeZone, localParts, zonedInstant } from './zoned-time.js';

const NY = 'America/New_York';
const KOLKATA = 'Asia/Kolkata';
const PARIS = 'Europe/Paris';

describe('isTimeZone', () => {
  it('accepts IANA zones and UTC', () => {
    for (const z of [NY, KOLKATA, PARIS, 'UTC', 'Australia/Sydney', 'America/Argentina/Buenos_Aires']) expect(isTimeZone(z)).toBe(true);
  });

  it('refuses city names, made-up zones and garbage', () => {
    for (const z of ['Paris', 'Mars/Olympus_Mons', 'America/New York', 'not a zone', '+25:00']) expect(isTimeZone(z)).toBe(false);
  });
});

describe('localParts', () => {
  it('reads the wall clock of an instant in a zone', () => {
    const at = new Date('2026-01-15T12:00:00Z');
    expect(localParts(at, NY)).toEqual({ year: 2026, month: 1, day: 15, hour: 7, minute: 0 });
    expect(localParts(at, 'UTC')).toEqual({ year: 2026, month: 1, day: 15, hour: 12, minute: 0 });
  });

  it('handles a half-hour offset (Asia/Kolkata, +05:30)', () => {
    expect(localParts(new Date('2026-01-15T12:00:00Z'), KOLKATA)).toEqual({ year: 2026, month: 1, day: 15, hour: 17, minute: 30 });
  });

  it('gives midnight as hour 0 on the next local day, never hour 24', () => {
    expect(localParts(new Date('2026-06-01T18:30:00Z'), KOLKATA)).toEqual({ year: 2026, month: 6, day: 2, hour: 0, minute: 0 });
  });

  it('crosses the year backwards west of UTC', () => {
    expect(localParts(new Date('2026-01-01T00:00:00Z'), NY)).toEqual({ year: 2025, month: 12, day: 31, hour: 19, minute: 0 });
  });

  it('follows DST: the same UTC hour reads an hour later in summer', () => {
    expect(localParts(new Date('2026-07-01T13:00:00Z'), NY).hour).toBe(9);
    expect(localParts(new Date('2026-12-01T13:00:00Z'), NY).hour).toBe(8);
  });
});

describe('zonedInstant', () => {
  it('finds the instant of a wall-clock time in winter and summer', () => {
    expect(zonedInstant({ year: 2026, month: 1, day: 15 }, 9 * 60, NY).toISOString()).toBe('2026-01-15T14:00:00.000Z');
    expect(zonedInstant({ year: 2026, month: 7, day: 15 }, 9 * 60, NY).toISOString()).toBe('2026-07-15T13:00:00.000Z');
    expect(zonedInstant({ year: 2026, month: 7, day: 15 }, 9 * 60, PARIS).toISOString()).toBe('2026-07-15T07:00:00.000Z');
  });

  it('handles Asia/Kolkata (+05:30), including a time that is the previous UTC day', () => {
    expect(zonedInstant({ year: 2026, month: 1, day: 15 }, 17 * 60 + 30, KOLKATA).toISOString()).toBe('2026-01-15T12:00:00.000Z');
    expect(zonedInstant({ year: 2026, month: 1, day: 15 }, 9 * 60, KOLKATA).toISOString()).toBe('2026-01-15T03:30:00.000Z');
    expect(zonedInstant({ year: 2026, month: 1, day: 15 }, 2 * 60, KOLKATA).toISOString()).toBe('2026-01-14T20:30:00.000Z');
  });

  it('takes minutes past the hour (the stagger minutes)', () => {
    expect(zonedInstant({ year: 2026, month: 3, day: 9 }, 21 * 60 + 80, NY).toISOString()).toBe('2026-03-10T02:20:00.000Z');
  });

  it('round-trips with localParts on every day of a DST year in several zones', () => {
    for (const zone of [NY, KOLKATA, PARIS, 'Australia/Sydney']) {
      for (let d = 0; d < 366; d++) {
        const day = addDays({ year: 2026, month: 1, day: 1 }, d);
        for (const minutes of [9 * 60, 13 * 60 + 20, 17 * 60 + 40, 22 * 60 + 20]) {
          const local = localParts(zonedInstant(day, minutes, zone), zone);
          expect({ ...local, zone }).toEqual({ ...day, hour: Math.floor(minutes / 60), minute: minutes % 60, zone });
        }
      }
    }
  });

  it('is right on the afternoon before a spring-forward in zones far east of UTC (Sydney, Auckland)', () => {
    // Sydney goes from +10 to +11 at 2026-10-04 02:00 local (2026-10-03T16:00Z); 17:00 on the 3rd is still +10.
    expect(zonedInstant({ year: 2026, month: 10, day: 3 }, 17 * 60, 'Australia/Sydney').toISOString()).toBe('2026-10-03T07:00:00.000Z');
    expect(zonedInstant({ year: 2026, month: 10, day: 3 }, 21 * 60, 'Australia/Sydney').toISOString()).toBe('2026-10-03T11:00:00.000Z');
    // Auckland goes from +12 to +13 at 2026-09-27 02:00 local (2026-09-26T14:00Z).
    expect(zonedInstant({ year: 2026, month: 9, day: 26 }, 17 * 60, 'Pacific/Auckland').toISOString()).toBe('2026-09-26T05:00:00.000Z');
  });

  it('resolves a skipped time on a spring-forward to the same wall time after the change (New York)', () => {
    // 2026-03-08 02:00 EST jumps to 03:00 EDT; 02:30 does not exist and should become 03:30 EDT.
    const at = zonedInstant({ year: 2026, month: 3, day: 8 }, 2 * 60 + 30, NY);
    expect(at.toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(localParts(at, NY)).toEqual({ year: 2026, month: 3, day: 8, hour: 3, minute: 30 });
  });

  it('resolves a skipped time on a spring-forward to the same wall time after the change (Paris)', () => {
    // 2026-03-29 02:00 CET jumps to 03:00 CEST; 02:30 should become 03:30 CEST = 01:30Z.
    const at = zonedInstant({ year: 2026, month: 3, day: 29 }, 2 * 60 + 30, PARIS);
    expect(at.toISOString()).toBe('2026-03-29T01:30:00.000Z');
  });

  it('resolves an ambiguous fall-back time to its first occurrence (New York)', () => {
    // 01:30 happens at 05:30Z (EDT) and again at 06:30Z (EST).
    expect(zonedInstant({ year: 2026, month: 11, day: 1 }, 90, NY).toISOString()).toBe('2026-11-01T05:30:00.000Z');
  });

  it('resolves an ambiguous fall-back time to its first occurrence (Paris, east of UTC)', () => {
    // 2026-10-25 02:30 happens at 00:30Z (CEST) and again at 01:30Z (CET).
    expect(zonedInstant({ year: 2026, month: 10, day: 25 }, 150, PARIS).toISOString()).toBe('2026-10-25T00:30:00.000Z');
  });
});

describe('addDays', () => {
  it('rolls over months and years', () => {
    expect(addDays({ year: 2026, month: 1, day: 31 }, 1)).toEqual({ year: 2026, month: 2, day: 1 });
    expect(addDays({ year: 2026, month: 2, day: 28 }, 1)).toEqual({ year: 2026, month: 3, day: 1 });
    expect(addDays({ year: 2028, month: 2, day: 28 }, 1)).toEqual({ year: 2028, month: 2, day: 29 });
    expect(addDays({ year: 2026, month: 12, day: 31 }, 1)).toEqual({ year: 2027, month: 1, day: 1 });
    expect(addDays({ year: 2026, month: 12, day: 25 }, 10)).toEqual({ year: 2027, month: 1, day: 4 });
    expect(addDays({ year: 2026, month: 1, day: 1 }, 365)).toEqual({ year: 2027, month: 1, day: 1 });
  });

  it('goes backwards and keeps the date for zero', () => {
    expect(addDays({ year: 2026, month: 3, day: 1 }, -1)).toEqual({ year: 2026, month: 2, day: 28 });
    expect(addDays({ year: 2027, month: 1, day: 1 }, -1)).toEqual({ year: 2026, month: 12, day: 31 });
    expect(addDays({ year: 2026, month: 3, day: 8 }, 0)).toEqual({ year: 2026, month: 3, day: 8 });
  });

  it('counts calendar days across a DST change (no 23/25-hour drift)', () => {
    expect(addDays({ year: 2026, month: 3, day: 7 }, 2)).toEqual({ year: 2026, month: 3, day: 9 });
    expect(addDays({ year: 2026, month: 10, day: 31 }, 2)).toEqual({ year: 2026, month: 11, day: 2 });
  });
});

describe('dateKey', () => {
  it('formats YYYY-MM-DD with zero padding', () => {
    expect(dateKey({ year: 2026, month: 3, day: 8 })).toBe('2026-03-08');
    expect(dateKey({ year: 2026, month: 12, day: 31 })).toBe('2026-12-31');
  });
});
