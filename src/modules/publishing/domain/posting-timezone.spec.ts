import { describe, expect, it } from '@jest/globals';
import { postingTimezone } from './posting-timezone.js';
import { localParts } from '../../../core/index.js';

const DEFAULT = 'America/New_York';
const at = (location: string | undefined, timezone: string | null = null) =>
  postingTimezone({ timezone, identity: location === undefined ? {} : { location } }, DEFAULT);

/** Two zones keep the same wall clock in winter and in summer. */
function sameClock(a: string, b: string): { jan: boolean; jul: boolean } {
  const same = (iso: string) => {
    const x = localParts(new Date(iso), a);
    const y = localParts(new Date(iso), b);
    return x.day === y.day && x.hour === y.hour && x.minute === y.minute;
  };
  return { jan: same('2026-01-15T12:00:00Z'), jul: same('2026-07-15T12:00:00Z') };
}

describe('postingTimezone', () => {
  it("uses the character's own timezone first", () => {
    expect(at('Paris', 'Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(at('Europe/Berlin', 'America/Chicago')).toBe('America/Chicago');
    expect(at(undefined, 'Asia/Kolkata')).toBe('Asia/Kolkata');
  });

  it('falls through an invalid or empty character timezone', () => {
    expect(at('Paris', 'Not/AZone')).toBe('Europe/Paris');
    expect(at('Tokyo', 'Paris')).toBe('Asia/Tokyo');
    expect(at(undefined, 'Not/AZone')).toBe(DEFAULT);
    expect(at('Tokyo', '')).toBe('Asia/Tokyo');
  });

  it("takes the identity's location when it is an IANA zone (trimmed)", () => {
    expect(at('Europe/Berlin')).toBe('Europe/Berlin');
    expect(at('  Asia/Kolkata  ')).toBe('Asia/Kolkata');
    expect(at('Australia/Sydney')).toBe('Australia/Sydney');
  });

  it('maps the city names people write', () => {
    expect(at('Paris')).toBe('Europe/Paris');
    expect(at('Paris, France')).toBe('Europe/Paris');
    expect(at('Tokyo')).toBe('Asia/Tokyo');
    expect(at('Los Angeles, CA')).toBe('America/Los_Angeles');
    expect(at('São Paulo')).toBe('America/Sao_Paulo');
    expect(at('Sao Paulo, Brazil')).toBe('America/Sao_Paulo');
    expect(at('SÃO PAULO')).toBe('America/Sao_Paulo');
    expect(at('Brooklyn, NY')).toBe('America/New_York');
    expect(at('London, UK')).toBe('Europe/London');
    expect(at('Mumbai, India')).toBe('Asia/Kolkata');
    expect(at('Chicago')).toBe('America/Chicago');
    expect(at('Sydney, Australia')).toBe('Australia/Sydney');
  });

  it('falls back to the app default for an unknown, blank or missing location', () => {
    expect(at('Atlantis')).toBe(DEFAULT);
    expect(at('   ')).toBe(DEFAULT);
    expect(at('')).toBe(DEFAULT);
    expect(at(undefined)).toBe(DEFAULT);
    expect(postingTimezone({ timezone: null, identity: { location: 'Nowhere' } }, 'Europe/Lisbon')).toBe('Europe/Lisbon');
  });

  // Places whose mapped zone keeps another clock than the place for part of the year.
  it('maps "Seattle, Washington" to Pacific time, not to New York (the "washington" of D.C.)', () => {
    expect(at('Seattle, Washington')).toBe('America/Los_Angeles');
  });

  it('does not read "Indiana" as India', () => {
    expect(sameClock(at('Indianapolis, Indiana'), 'America/Indiana/Indianapolis')).toEqual({ jan: true, jul: true });
  });

  it('keeps the clock of places whose DST differs from the zone they are mapped to', () => {
    const places: Array<[string, string]> = [['Phoenix', 'America/Phoenix'], ['Athens, Greece', 'Europe/Athens'], ['Cairo', 'Africa/Cairo'], ['Mexico City', 'America/Mexico_City']];
    const got = Object.fromEntries(places.map(([place, zone]) => [place, { zone: at(place), ...sameClock(at(place), zone) }]));
    const want = Object.fromEntries(places.map(([place]) => [place, { zone: at(place), jan: true, jul: true }]));
    expect(got).toEqual(want);
  });
});
