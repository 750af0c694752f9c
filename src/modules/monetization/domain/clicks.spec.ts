import { describe, expect, it } from '@jest/globals';
import { clickDay, clickField, mergeCounts, parseClickField, seriesDays } from './clicks.js';

const LINK = 'lnk_01HZX6FQJ5N6E7T2M3A4B5C6D7';

describe('click fields', () => {
  it('round-trips a link and day', () => {
    expect(parseClickField(clickField(LINK, '2025-01-31'))).toEqual({ linkId: LINK, day: '2025-01-31' });
  });

  it('ignores anything else', () => {
    expect(parseClickField('garbage')).toBeNull();
    expect(parseClickField(`${LINK}|2025-1-31`)).toBeNull();
  });

  it('takes the UTC day', () => {
    expect(clickDay(new Date('2025-01-31T23:59:59.999-01:00'))).toBe('2025-02-01');
  });

  it('merges counts', () => {
    expect([...mergeCounts(new Map([['a', 1], ['b', 2]]), new Map([['b', 3], ['c', 4]]))]).toEqual([['a', 1], ['b', 5], ['c', 4]]);
  });
});

describe('seriesDays', () => {
  const now = new Date('2025-03-02T10:00:00Z');

  it('defaults to the last 30 days up to today', () => {
    const days = seriesDays({}, now);
    expect([days.length, days[0], days[29]]).toEqual([30, '2025-02-01', '2025-03-02']);
  });

  it('lists every day of the range, both ends included', () => {
    expect(seriesDays({ from: '2024-02-27', to: '2024-03-01' }, now)).toEqual(['2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01']);
  });

  it('refuses a reversed range, a bad date and more than 366 days', () => {
    expect(() => seriesDays({ from: '2025-02-02', to: '2025-02-01' }, now)).toThrow('before');
    expect(() => seriesDays({ from: '2025-02-30' }, now)).toThrow('YYYY-MM-DD');
    expect(() => seriesDays({ from: '2024-01-01', to: '2025-01-01' }, now)).toThrow('366');
  });
});
