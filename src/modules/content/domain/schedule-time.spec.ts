import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { calendarDay, calendarRange, formatDate, localDay, parseDate, plannedFor, postingHours, startOfWeek, zonedTime } from './schedule-time.js';

const day = (s: string) => parseDate(s)!;

describe('dates and zones', () => {
  it('parses only real YYYY-MM-DD dates', () => {
    expect(formatDate(day('2024-02-29'))).toBe('2024-02-29');
    for (const bad of ['2023-02-29', '2024-13-01', '2024-1-01', '2024-01-01T00:00:00Z', '']) expect(parseDate(bad)).toBeNull();
  });

  it('turns a local wall-clock time into the right instant, across DST', () => {
    expect(zonedTime(day('2024-01-15'), 12, 0, 'America/New_York').toISOString()).toBe('2024-01-15T17:00:00.000Z');
    expect(zonedTime(day('2024-07-15'), 12, 0, 'America/New_York').toISOString()).toBe('2024-07-15T16:00:00.000Z');
    expect(zonedTime(day('2024-07-15'), 9, 30, 'Asia/Kolkata').toISOString()).toBe('2024-07-15T04:00:00.000Z');
    expect(zonedTime(day('2024-03-31'), 8, 0, 'Europe/Berlin').toISOString()).toBe('2024-03-31T06:00:00.000Z');
    expect(zonedTime(day('2024-03-30'), 8, 0, 'Europe/Berlin').toISOString()).toBe('2024-03-30T07:00:00.000Z');
    expect(zonedTime(day('2024-03-10'), 0, 0, 'UTC').toISOString()).toBe('2024-03-10T00:00:00.000Z');
  });

  it('puts a published item on its local publish day, whatever its plan; others on their planned day', () => {
    // Published at 23:30 UTC on the 10th: the 11th in Tokyo, the 10th in Denver; planned for the 14th.
    const published = { publishedAt: new Date('2031-03-10T23:30:00Z'), plannedFor: new Date('2031-03-14T03:00:00Z') };
    expect(formatDate(calendarDay(published, 'Asia/Tokyo')!)).toBe('2031-03-11');
    expect(formatDate(calendarDay(published, 'America/Denver')!)).toBe('2031-03-10');
    expect(formatDate(calendarDay({ publishedAt: published.publishedAt, plannedFor: null }, 'Asia/Tokyo')!)).toBe('2031-03-11');
    expect(formatDate(calendarDay({ publishedAt: null, plannedFor: published.plannedFor }, 'Asia/Tokyo')!)).toBe('2031-03-14');
    expect(calendarDay({ publishedAt: null, plannedFor: null }, 'Asia/Tokyo')).toBeNull();
  });

  it('finds the local date and the Monday of the local week', () => {
    const lateSunday = new Date('2024-07-15T02:00:00Z'); // Sunday 22:00 in New York
    expect(formatDate(localDay(lateSunday, 'America/New_York'))).toBe('2024-07-14');
    expect(formatDate(localDay(lateSunday, 'Europe/Berlin'))).toBe('2024-07-15');
    expect(formatDate(startOfWeek(lateSunday, 'America/New_York'))).toBe('2024-07-08');
    expect(formatDate(startOfWeek(lateSunday, 'Europe/Berlin'))).toBe('2024-07-15');
  });
});

describe('planned_for slots', () => {
  it('spreads 1 to 4 posts a day at least four hours apart', () => {
    for (const n of [1, 2, 3, 4]) {
      const hours = postingHours(n);
      expect(hours).toHaveLength(n);
      for (let i = 1; i < n; i++) expect(hours[i] - hours[i - 1]).toBeGreaterThanOrEqual(4);
    }
    expect(() => postingHours(5)).toThrow();
  });

  it('places day d, slot s at the local posting hour of the week start + d', () => {
    const week = day('2024-07-15');
    expect(plannedFor(week, 0, 0, 1, 'America/New_York').toISOString()).toBe('2024-07-15T16:00:00.000Z');
    expect(plannedFor(week, 6, 3, 4, 'America/New_York').toISOString()).toBe('2024-07-22T00:00:00.000Z');
    expect(plannedFor(week, 2, 1, 2, 'Asia/Tokyo').toISOString()).toBe('2024-07-17T09:00:00.000Z');
  });
});

describe('calendarRange', () => {
  const now = new Date('2024-07-17T12:00:00Z'); // a Wednesday

  it('defaults to this local week, Monday to Sunday', () => {
    const r = calendarRange(undefined, undefined, 'America/New_York', now);
    expect([formatDate(r.from), formatDate(r.to)]).toEqual(['2024-07-15', '2024-07-21']);
    expect(r.startsAt.toISOString()).toBe('2024-07-15T04:00:00.000Z');
    expect(r.endsBefore.toISOString()).toBe('2024-07-22T04:00:00.000Z');
  });

  it('fills a missing end or start with a week', () => {
    const r = calendarRange('2024-08-01', undefined, 'UTC', now);
    expect(formatDate(r.to)).toBe('2024-08-07');
    expect(formatDate(calendarRange(undefined, '2024-08-07', 'UTC', now).from)).toBe('2024-08-01');
  });

  it('allows up to 62 days and refuses more, a reversed range and bad dates with 400', () => {
    expect(calendarRange('2024-01-01', '2024-03-02', 'UTC', now).to - day('2024-01-01')).toBe(61);
    for (const [f, t] of [['2024-01-01', '2024-03-03'], ['2024-02-02', '2024-02-01'], ['2024-02-30', undefined], ['x', undefined]]) {
      let err: unknown;
      try {
        calendarRange(f, t, 'UTC', now);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('validation_failed');
    }
  });
});
