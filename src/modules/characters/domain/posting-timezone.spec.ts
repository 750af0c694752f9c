import { describe, expect, it } from '@jest/globals';
import { isTimeZone, localParts } from '../../../core/index.js';
import { locationTimezone, postingTimezone } from './posting-timezone.js';
import { COUNTRIES } from './time-zone-places.js';

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

/** Each location with the zone it must answer, as one comparable list. */
function expectZones(cases: Array<[string, string | undefined]>): void {
  expect(cases.map(([place]) => [place, locationTimezone(place)])).toEqual(cases);
}

describe('postingTimezone', () => {
  it("uses the character's own timezone first", () => {
    expect(at('Paris', 'Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(at('Europe/Berlin', 'America/Chicago')).toBe('America/Chicago');
    expect(at(undefined, 'Asia/Kolkata')).toBe('Asia/Kolkata');
  });

  it('falls through an invalid or empty character timezone to the location', () => {
    expect(at('Paris', 'Not/AZone')).toBe('Europe/Paris');
    expect(at('Tokyo', 'Paris')).toBe('Asia/Tokyo');
    expect(at(undefined, 'Not/AZone')).toBe(DEFAULT);
    expect(at('Tokyo', '')).toBe('Asia/Tokyo');
  });

  it("takes the identity's location when it is an IANA zone (trimmed)", () => {
    expect(at('Europe/Berlin')).toBe('Europe/Berlin');
    expect(at('  Asia/Kolkata  ')).toBe('Asia/Kolkata');
    expect(at('Australia/Sydney')).toBe('Australia/Sydney');
    expect(at('America/Argentina/Buenos_Aires')).toBe('America/Argentina/Buenos_Aires');
  });

  it('reads zone link names that are places ("Japan", "Singapore") as the places', () => {
    expectZones([['Japan', 'Asia/Tokyo'], ['Singapore', 'Asia/Singapore'], ['Portugal', 'Europe/Lisbon'], ['Poland', 'Europe/Warsaw']]);
  });

  it('falls back to the app default for an unknown, blank or missing location', () => {
    expect(at('Atlantis')).toBe(DEFAULT);
    expect(at('   ')).toBe(DEFAULT);
    expect(at('')).toBe(DEFAULT);
    expect(at(undefined)).toBe(DEFAULT);
    expect(at('Not/AZone')).toBe(DEFAULT);
    expect(postingTimezone({ timezone: null, identity: { location: null } }, 'Europe/Lisbon')).toBe('Europe/Lisbon');
    expect(postingTimezone({ timezone: null, identity: { location: 'Nowhere' } }, 'Europe/Lisbon')).toBe('Europe/Lisbon');
  });

  it('answers the default for a country spanning zones with no place in it named', () => {
    expect(at('USA')).toBe(DEFAULT);
    expect(at('United States')).toBe(DEFAULT);
    expect(postingTimezone({ timezone: null, identity: { location: 'U.S.' } }, 'Europe/Lisbon')).toBe('Europe/Lisbon');
  });
});

describe('locationTimezone: the place table', () => {
  it('maps each country and city to its own zone', () => {
    expectZones([
      ['Germany', 'Europe/Berlin'], ['Berlin', 'Europe/Berlin'], ['Munich', 'Europe/Berlin'], ['Hamburg', 'Europe/Berlin'], ['München', 'Europe/Berlin'],
      ['France', 'Europe/Paris'], ['Paris', 'Europe/Paris'], ['Spain', 'Europe/Madrid'], ['Barcelona', 'Europe/Madrid'],
      ['Italy', 'Europe/Rome'], ['Milan', 'Europe/Rome'], ['Netherlands', 'Europe/Amsterdam'], ['Amsterdam', 'Europe/Amsterdam'],
      ['UK', 'Europe/London'], ['United Kingdom', 'Europe/London'], ['London', 'Europe/London'], ['Ireland', 'Europe/Dublin'], ['Dublin', 'Europe/Dublin'],
      ['Portugal', 'Europe/Lisbon'], ['Lisbon', 'Europe/Lisbon'], ['Japan', 'Asia/Tokyo'], ['Tokyo', 'Asia/Tokyo'], ['Osaka', 'Asia/Tokyo'],
      ['Brazil', 'America/Sao_Paulo'], ['São Paulo', 'America/Sao_Paulo'], ['Sao Paulo', 'America/Sao_Paulo'], ['Rio', 'America/Sao_Paulo'],
      ['Rio de Janeiro', 'America/Sao_Paulo'], ['Denver', 'America/Denver'], ['NYC', 'America/New_York'], ['New York', 'America/New_York'],
      ['LA', 'America/Los_Angeles'], ['Los Angeles', 'America/Los_Angeles'], ['Chicago', 'America/Chicago'], ['Phoenix', 'America/Phoenix'],
      ['China', 'Asia/Shanghai'], ['Beijing', 'Asia/Shanghai'], ['Hong Kong', 'Asia/Hong_Kong'], ['Singapore', 'Asia/Singapore'],
      ['India', 'Asia/Kolkata'], ['Mumbai', 'Asia/Kolkata'], ['Korea', 'Asia/Seoul'], ['South Korea', 'Asia/Seoul'], ['Seoul', 'Asia/Seoul'],
      ['Sydney', 'Australia/Sydney'], ['Melbourne', 'Australia/Melbourne'], ['Brisbane', 'Australia/Brisbane'], ['Perth', 'Australia/Perth'],
      ['Adelaide', 'Australia/Adelaide'], ['Toronto', 'America/Toronto'], ['Vancouver', 'America/Vancouver'], ['Calgary', 'America/Edmonton'],
      ['Montreal', 'America/Toronto'], ['Mexico', 'America/Mexico_City'], ['Mexico City', 'America/Mexico_City'], ['Argentina', 'America/Argentina/Buenos_Aires'],
      ['Buenos Aires', 'America/Argentina/Buenos_Aires'], ['Canada', 'America/Toronto'], ['Australia', 'Australia/Sydney'], ['New Zealand', 'Pacific/Auckland'],
    ]);
  });

  it('reads "City, Region, Country": the most specific place, in the country named', () => {
    expectZones([
      ['Berlin, Germany', 'Europe/Berlin'], ['Munich, Germany', 'Europe/Berlin'], ['Paris, France', 'Europe/Paris'], ['Perth, Australia', 'Australia/Perth'],
      ['Perth, Western Australia', 'Australia/Perth'], ['Western Australia', 'Australia/Perth'], ['São Paulo, Brazil', 'America/Sao_Paulo'], ['Sao Paulo, Brazil', 'America/Sao_Paulo'],
      ['Denver, Colorado', 'America/Denver'], ['Denver, CO, USA', 'America/Denver'], ['Tokyo, Japan', 'Asia/Tokyo'], ['Los Angeles, CA', 'America/Los_Angeles'],
      ['Brooklyn, NY', 'America/New_York'], ['London, UK', 'Europe/London'], ['Mumbai, India', 'Asia/Kolkata'], ['Sydney, Australia', 'Australia/Sydney'],
      ['Mexico City, Mexico', 'America/Mexico_City'], ['Kowloon, Hong Kong', 'Asia/Hong_Kong'], ['Hong Kong, China', 'Asia/Hong_Kong'],
      ['Belfast, Northern Ireland', 'Europe/London'], ['Cork, Ireland', 'Europe/Dublin'], ['Tenerife, Spain', 'Atlantic/Canary'],
      // A place of another country than the one named is another place of the same name.
      ['Perth, Scotland', 'Europe/London'], ['Paris, Texas', 'America/Chicago'], ['London, Ontario', 'America/Toronto'],
      ['Birmingham, Alabama', 'America/Chicago'], ['Victoria, BC', 'America/Vancouver'], ['Sydney, Nova Scotia', 'America/Halifax'],
    ]);
  });

  it('ignores case and accents, and matches whole words only', () => {
    expectZones([
      ['SÃO PAULO', 'America/Sao_Paulo'], ['sao paulo', 'America/Sao_Paulo'], ['MUNICH, GERMANY', 'Europe/Berlin'], ['Köln', 'Europe/Berlin'],
      ['Koln', 'Europe/Berlin'], ['Bogota', 'America/Bogota'], ['Zürich', 'Europe/Zurich'], ['Montréal, Québec', 'America/Toronto'],
      ['Indianapolis, Indiana', 'America/Indiana/Indianapolis'], ['Indiana', 'America/Indiana/Indianapolis'],
      ['Seattle, Washington', 'America/Los_Angeles'], ['Washington, D.C.', 'America/New_York'],
      ['New Mexico', 'America/Denver'], ['New South Wales', 'Australia/Sydney'], ['New England', 'America/New_York'],
      // "la" and "us" are words inside other names; alone in their part they are places.
      ['La Rochelle, France', 'Europe/Paris'], ['La Paz, Bolivia', 'America/La_Paz'], ['Austin, US', 'America/Chicago'],
      ['Parisian vibes', undefined], ['Berliner', undefined], ['Romania', 'Europe/Bucharest'],
    ]);
  });

  it('keeps the clock of places whose DST differs from a neighbour', () => {
    const places: Array<[string, string]> = [['Phoenix', 'America/Phoenix'], ['Athens, Greece', 'Europe/Athens'], ['Cairo', 'Africa/Cairo'], ['Mexico City', 'America/Mexico_City'], ['Indianapolis, Indiana', 'America/Indiana/Indianapolis']];
    const got = Object.fromEntries(places.map(([place, zone]) => [place, sameClock(locationTimezone(place)!, zone)]));
    expect(got).toEqual(Object.fromEntries(places.map(([place]) => [place, { jan: true, jul: true }])));
  });

  it('answers undefined for a place it does not know', () => {
    expectZones([['Atlantis', undefined], ['', undefined], ['somewhere sunny', undefined], ['Georgia', undefined]]);
  });

  it('holds only valid IANA zones', () => {
    const zones = COUNTRIES.flatMap((c) => [...(c.zone ? [c.zone] : []), ...(c.places ?? []).map(([, zone]) => zone)]);
    expect(zones.filter((z) => !isTimeZone(z) || !z.includes('/'))).toEqual([]);
  });

  it('reads every name of the table alone as its own entry (no name shadows another)', () => {
    const wrong = COUNTRIES.flatMap((c) => [
      ...c.names.map((name): [string, string | undefined, string | undefined] => [name, locationTimezone(name), c.zone]),
      ...(c.places ?? []).flatMap(([names, zone]) => names.map((name): [string, string | undefined, string | undefined] => [name, locationTimezone(name), zone])),
    ]).filter(([, got, want]) => got !== want);
    expect(wrong).toEqual([]);
  });
});
