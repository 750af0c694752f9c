import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { rankHours } from './best-hours.js';
import { rangeInstants, resolveRange } from './date-range.js';
import { engagementRate } from './engagement.js';
import { retentionCutoffs, snapshotDaysToDrop, weekOf } from './retention.js';
import { blockedAfterRateLimit, isDue, nextDueAfterClaim, onDemandRetryAfterSeconds } from './sync-schedule.js';

const none = { impressions: null, views: null, likes: null, comments: null, shares: null, saves: null };

describe('engagement rate', () => {
  it('is interactions over the larger of impressions and views', () => {
    expect(engagementRate({ impressions: 1000, views: 400, likes: 30, comments: 5, shares: 3, saves: 2 })).toBe(0.04);
    expect(engagementRate({ ...none, views: 200, likes: 10 })).toBe(0.05);
  });

  it('counts missing interactions as none but is null without reach or without any interaction reported', () => {
    expect(engagementRate({ ...none, impressions: 300, likes: 3, saves: null })).toBe(0.01);
    expect(engagementRate({ ...none, likes: 5 })).toBeNull();
    expect(engagementRate({ ...none, impressions: 0, views: 0, likes: 5 })).toBeNull();
    expect(engagementRate({ ...none, impressions: 100 })).toBeNull();
  });

  it('rounds to six decimals', () => {
    expect(engagementRate({ ...none, impressions: 3, likes: 1 })).toBe(0.333333);
  });
});

describe('the requested range', () => {
  const now = new Date('2025-03-15T18:00:00Z');
  const code = (f: () => unknown) => {
    try {
      f();
      return null;
    } catch (err) {
      return err instanceof AppError ? err.code : 'other';
    }
  };

  it('defaults to the last 30 days up to today, or 30 days from the one end given', () => {
    expect(resolveRange({}, now)).toEqual({ from: '2025-02-14', to: '2025-03-15' });
    expect(resolveRange({ from: '2025-01-01' }, now)).toEqual({ from: '2025-01-01', to: '2025-01-30' });
    expect(resolveRange({ to: '2025-01-30' }, now)).toEqual({ from: '2025-01-01', to: '2025-01-30' });
  });

  it('accepts one day and 366 days, refuses 367, a reversed range and non-dates', () => {
    expect(resolveRange({ from: '2025-01-01', to: '2025-01-01' }, now)).toEqual({ from: '2025-01-01', to: '2025-01-01' });
    expect(resolveRange({ from: '2024-01-01', to: '2024-12-31' }, now)).toEqual({ from: '2024-01-01', to: '2024-12-31' });
    expect(code(() => resolveRange({ from: '2023-12-31', to: '2024-12-31' }, now))).toBe('validation_failed');
    expect(code(() => resolveRange({ from: '2025-02-02', to: '2025-02-01' }, now))).toBe('validation_failed');
    expect(code(() => resolveRange({ from: '2025-02-30' }, now))).toBe('validation_failed');
    expect(code(() => resolveRange({ to: '15/03/2025' }, now))).toBe('validation_failed');
  });

  it('bounds the instants from the start of `from` to the start of the day after `to`', () => {
    expect(rangeInstants({ from: '2025-01-01', to: '2025-01-31' })).toEqual({ start: new Date('2025-01-01T00:00:00Z'), end: new Date('2025-02-01T00:00:00Z') });
  });
});

describe('retention', () => {
  it('keeps 90 days of daily snapshots and two years of follower days', () => {
    expect(retentionCutoffs(new Date('2025-06-30T23:59:00Z'))).toEqual({ weeklyBefore: '2025-04-01', followersFrom: '2023-07-01' });
  });

  it('names ISO weeks by their Monday', () => {
    expect(weekOf('2025-03-10')).toBe('2025-03-10');
    expect(weekOf('2025-03-16')).toBe('2025-03-10');
    expect(weekOf('2025-03-17')).toBe('2025-03-17');
  });

  it('compacts days before the cutoff to the latest of each week and keeps recent days', () => {
    const cutoffs = { weeklyBefore: '2025-03-20', followersFrom: '2023-01-01' };
    const days = ['2025-03-10', '2025-03-12', '2025-03-16', '2025-03-17', '2025-03-19', '2025-03-20', '2025-03-21'];
    expect(snapshotDaysToDrop(days, cutoffs)).toEqual(['2025-03-10', '2025-03-12', '2025-03-17']);
    expect(snapshotDaysToDrop(['2025-03-20', '2025-03-21'], cutoffs)).toEqual([]);
  });
});

describe('sync scheduling', () => {
  const now = new Date('2025-03-15T12:00:00Z');
  const sixHours = 6 * 3_600_000;

  it('is due once its time came and no rate limit blocks it', () => {
    expect(isDue({ nextDueAt: now, blockedUntil: null }, now)).toBe(true);
    expect(isDue({ nextDueAt: new Date(now.getTime() + 1), blockedUntil: null }, now)).toBe(false);
    expect(isDue({ nextDueAt: new Date(0), blockedUntil: new Date(now.getTime() + 1000) }, now)).toBe(false);
    expect(isDue({ nextDueAt: new Date(0), blockedUntil: now }, now)).toBe(true);
  });

  it('moves a claimed slot one period on, so it is no longer due for another claimer', () => {
    const next = nextDueAfterClaim(now, sixHours);
    expect(next.getTime() - now.getTime()).toBe(sixHours);
    expect(isDue({ nextDueAt: next, blockedUntil: null }, now)).toBe(false);
  });

  it('blocks a rate-limited connection for the Retry-After, at least a minute and at most a period', () => {
    expect(blockedAfterRateLimit(now, 120_000, sixHours).getTime() - now.getTime()).toBe(120_000);
    expect(blockedAfterRateLimit(now, 5, sixHours).getTime() - now.getTime()).toBe(60_000);
    expect(blockedAfterRateLimit(now, undefined, sixHours).getTime() - now.getTime()).toBe(60_000);
    expect(blockedAfterRateLimit(now, 10 * sixHours, sixHours).getTime() - now.getTime()).toBe(sixHours);
  });

  it('lets a workspace ask for a sync every 10 minutes', () => {
    expect(onDemandRetryAfterSeconds(null, now)).toBe(0);
    expect(onDemandRetryAfterSeconds(new Date(now.getTime() - 60_000), now)).toBe(540);
    expect(onDemandRetryAfterSeconds(new Date(now.getTime() - 600_000), now)).toBe(0);
  });
});

describe('best hours', () => {
  it('ranks weekday × hour of the posting zone by mean engagement', () => {
    const posts = [
      // Monday 2025-03-10 09:xx in New York (13:xx UTC, EDT)
      { publishedAt: new Date('2025-03-10T13:05:00Z'), engagementRate: 0.02 },
      { publishedAt: new Date('2025-03-17T13:40:00Z'), engagementRate: 0.04 },
      // Saturday 2025-03-15 20:xx in New York = Sunday 00:xx UTC
      { publishedAt: new Date('2025-03-16T00:30:00Z'), engagementRate: 0.05 },
    ];
    expect(rankHours(posts, 'America/New_York')).toEqual([
      { weekday: 6, hour: 20, score: 0.05 },
      { weekday: 1, hour: 9, score: 0.03 },
    ]);
    expect(rankHours(posts, 'UTC')[0]).toEqual({ weekday: 0, hour: 0, score: 0.05 });
  });
});
