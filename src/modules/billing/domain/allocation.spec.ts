import { describe, expect, it } from '@jest/globals';
import { currentPeriodEnd, periodEnd, thresholdsReached } from './allocation.js';

describe('thresholdsReached', () => {
  it.each([
    [200, 200, []],
    [200, 51, []],
    [200, 50, [25]],
    [200, 21, [25]],
    [200, 20, [25, 10]],
    [200, 1, [25, 10]],
    [200, 0, [25, 10, 0]],
    [50, 12, [25]],
    [50, 5, [25, 10]],
  ])('granted %i, remaining %i: %j', (granted, remaining, expected) => {
    expect(thresholdsReached({ granted, remaining, period: 'p' })).toEqual(expected);
  });

  it('has none without an allocation or before the first period', () => {
    expect(thresholdsReached({ granted: 0, remaining: 0, period: 'p' })).toEqual([]);
    expect(thresholdsReached({ granted: 50, remaining: 0, period: null })).toEqual([]);
  });
});

describe('periodEnd', () => {
  it('keeps the anchor day, clamped to short months, without drifting', () => {
    const anchor = new Date('2026-01-31T10:00:00.000Z');
    expect(periodEnd(anchor, 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(periodEnd(anchor, 2).toISOString()).toBe('2026-03-31T10:00:00.000Z');
    expect(periodEnd(anchor, 13).toISOString()).toBe('2027-02-28T10:00:00.000Z');
    expect(periodEnd(new Date('2027-12-15T00:00:00.000Z'), 1).toISOString()).toBe('2028-01-15T00:00:00.000Z');
  });

  it('finds the period a moment falls in', () => {
    const anchor = new Date('2026-01-31T10:00:00.000Z');
    expect(currentPeriodEnd(anchor, new Date('2026-02-01T00:00:00.000Z'))).toEqual({ n: 1, end: new Date('2026-02-28T10:00:00.000Z') });
    expect(currentPeriodEnd(anchor, new Date('2026-02-28T10:00:00.000Z'))).toEqual({ n: 2, end: new Date('2026-03-31T10:00:00.000Z') });
    expect(currentPeriodEnd(anchor, new Date('2026-01-31T10:00:00.000Z'))).toEqual({ n: 1, end: new Date('2026-02-28T10:00:00.000Z') });
    expect(currentPeriodEnd(anchor, new Date('2028-07-04T00:00:00.000Z')).end.toISOString()).toBe('2028-07-31T10:00:00.000Z');
  });
});
