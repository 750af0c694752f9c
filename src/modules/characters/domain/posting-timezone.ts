import { isTimeZone } from '../../../core/index.js';
import { COUNTRIES, type Country } from './time-zone-places.js';

/** Where a character's zone comes from: its own setting, its identity's location, or the app's default. */
export type TimezoneSource = 'set' | 'location' | 'default';

export interface EffectiveTimezone {
  zone: string;
  source: TimezoneSource;
}

type Placed = { timezone: string | null; identity: { location?: string | null } };

/**
 * The one zone a character's posts are planned and shown in (contract §8), and why: its own valid
 * `timezone`, else the zone its identity's location names, else the app's default.
 */
export function effectiveTimezone(character: Placed, appDefault: string): EffectiveTimezone {
  if (character.timezone && isTimeZone(character.timezone)) return { zone: character.timezone, source: 'set' };
  const location = character.identity.location;
  const located = typeof location === 'string' ? locationTimezone(location) : undefined;
  return located ? { zone: located, source: 'location' } : { zone: appDefault, source: 'default' };
}

export function postingTimezone(character: Placed, appDefault: string): string {
  return effectiveTimezone(character, appDefault).zone;
}

/** The zone a free-text location names: an IANA zone written out ("Europe/Berlin") or a known place; else undefined. */
export function locationTimezone(location: string): string | undefined {
  const trimmed = location.trim();
  // Only Area/Location names: link names such as "Japan" or "Singapore" are read as the places they are.
  if (trimmed.includes('/') && isTimeZone(trimmed)) return trimmed;
  return placeTimezone(trimmed);
}

interface PlaceName {
  words: string;
  wholePartOnly: boolean;
  country: Country;
  zone?: string;
  isCountry: boolean;
}

interface Hit {
  name: PlaceName;
  start: number;
  end: number;
}

/** Lower case without accents or punctuation: "São Paulo" and "SAO-PAULO" both read "sao paulo". */
function wordsOf(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

function placeName(written: string, country: Country, zone: string | undefined, isCountry: boolean): PlaceName {
  const words = wordsOf(written);
  return { words, wholePartOnly: words.replace(/ /g, '').length <= 2, country, zone, isCountry };
}

const NAMES: readonly PlaceName[] = COUNTRIES.flatMap((country) => [
  ...country.names.map((name) => placeName(name, country, country.zone, true)),
  ...(country.places ?? []).flatMap(([names, zone]) => names.map((name) => placeName(name, country, zone, false))),
]);

/** The names found in a location, in the order written; a name inside a longer one ("Mexico" in "New Mexico") is not counted. */
function hitsIn(location: string): Hit[] {
  // Parts joined by " , ": a name never spans two parts, and a whole part is ", name ,".
  const text = ` , ${location.split(/[,;/|()]/).map(wordsOf).join(' , ')} , `;
  const hits: Hit[] = [];
  for (const name of NAMES) {
    const needle = name.wholePartOnly ? `, ${name.words} ,` : ` ${name.words} `;
    const lead = name.wholePartOnly ? 2 : 1;
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      hits.push({ name, start: at + lead, end: at + lead + name.words.length });
    }
  }
  const covered = (h: Hit) => hits.some((o) => o.end - o.start > h.end - h.start && o.start <= h.start && o.end >= h.end);
  return hits.filter((h) => !covered(h)).sort((a, b) => a.start - b.start);
}

/**
 * The zone of a place in the table. People write "City, Region, Country", broadest last: the
 * last country named (else the country of the last place named) says which country is meant, and
 * the first place named in it is the most specific ("Perth, Australia" is Perth, "Munich,
 * Germany" is Munich). With no place of that country named, the country's own zone.
 */
function placeTimezone(location: string): string | undefined {
  const hits = hitsIn(location);
  const countries = hits.filter((h) => h.name.isCountry);
  const country = (countries.at(-1) ?? hits.at(-1))?.name.country;
  if (!country) return undefined;
  const place = hits.find((h) => !h.name.isCountry && h.name.country === country);
  return place ? place.name.zone : country.zone;
}
