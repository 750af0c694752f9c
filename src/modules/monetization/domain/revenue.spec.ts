import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { acceptCurrency, acceptOccurredAt, filterRange, parseBound, summaryRange } from './revenue.js';

const NOW = new Date('2025-06-15T12:00:00.000Z');

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('validation_failed');
    return ((err as AppError).details as Array<{ field: string }>)[0].field;
  }
  return undefined;
}

describe('summaryRange', () => {
  it('defaults to the last 90 days up to now', () => {
    expect(summaryRange({}, NOW)).toEqual({ start: new Date('2025-03-17T12:00:00.000Z'), end: NOW });
  });

  it('defaults from to 90 days before a given to', () => {
    expect(summaryRange({ to: '2025-01-31' }, NOW)).toEqual({ start: new Date('2024-11-03T00:00:00.000Z'), end: new Date('2025-02-01T00:00:00.000Z') });
  });

  it('reads a date as a whole UTC day: from its start, to its end', () => {
    expect(summaryRange({ from: '2025-01-01', to: '2025-01-31' }, NOW)).toEqual({
      start: new Date('2025-01-01T00:00:00.000Z'),
      end: new Date('2025-02-01T00:00:00.000Z'),
    });
  });

  it('reads date-times with their zone', () => {
    expect(summaryRange({ from: '2025-01-01T10:00:00+02:00', to: '2025-01-02T00:00:00Z' }, NOW)).toEqual({
      start: new Date('2025-01-01T08:00:00.000Z'),
      end: new Date('2025-01-02T00:00:00.000Z'),
    });
  });

  it.each([
    [{ from: '2025-02-01', to: '2025-01-01' }, 'to'],
    [{ from: '2025-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z' }, 'to'],
    [{ from: '2025-02-30' }, 'from'],
    [{ to: '01/02/2025' }, 'to'],
    [{ from: '2025-01-01T00:00:00' }, 'from'],
    [{ from: 'yesterday' }, 'from'],
  ])('refuses %j naming %s', (input, field) => {
    expect(fieldOf(() => summaryRange(input, NOW))).toBe(field);
  });
});

describe('filterRange', () => {
  it('leaves absent ends open', () => {
    expect(filterRange({})).toEqual({ start: undefined, end: undefined });
    expect(filterRange({ to: '2025-01-01' })).toEqual({ start: undefined, end: new Date('2025-01-02T00:00:00.000Z') });
  });

  it('refuses from after to', () => {
    expect(fieldOf(() => filterRange({ from: '2025-03-01', to: '2025-02-01' }))).toBe('to');
  });
});

describe('parseBound', () => {
  it('keeps milliseconds', () => {
    expect(parseBound('from', '2025-01-01T00:00:00.123Z').toISOString()).toBe('2025-01-01T00:00:00.123Z');
  });
});

describe('acceptCurrency', () => {
  it('accepts the workspace currency in any case', () => {
    expect(acceptCurrency('usd', 'USD')).toBe('USD');
    expect(acceptCurrency('USD', 'USD')).toBe('USD');
  });

  it('refuses another currency, naming the one accepted', () => {
    expect(fieldOf(() => acceptCurrency('EUR', 'USD'))).toBe('currency');
    expect(() => acceptCurrency('EUR', 'USD')).toThrow(/USD/);
    expect(fieldOf(() => acceptCurrency('US', 'USD'))).toBe('currency');
  });
});

describe('acceptOccurredAt', () => {
  it('accepts the past and a small skew, refuses further in the future', () => {
    expect(acceptOccurredAt(new Date('2020-01-01T00:00:00Z'), NOW)).toEqual(new Date('2020-01-01T00:00:00Z'));
    expect(acceptOccurredAt(new Date(NOW.getTime() + 60_000), NOW).getTime()).toBe(NOW.getTime() + 60_000);
    expect(fieldOf(() => acceptOccurredAt(new Date(NOW.getTime() + 3_600_000), NOW))).toBe('occurred_at');
  });
});
