import { isTimeZone } from '../../../core/index.js';

/** Places people name in a character's identity, and the timezone they live in. */
const PLACES: ReadonlyArray<[RegExp, string]> = [
  [/new york|nyc|brooklyn|boston|miami|atlanta|toronto|washington,? ?d\.?c\b|philadelphia|indiana/, 'America/New_York'],
  [/mexico city/, 'America/Mexico_City'],
  [/chicago|dallas|houston|austin/, 'America/Chicago'],
  [/phoenix|arizona/, 'America/Phoenix'],
  [/denver/, 'America/Denver'],
  [/los angeles|\bla\b|san francisco|seattle|vancouver|san diego|las vegas|portland|california/, 'America/Los_Angeles'],
  [/s[aã]o paulo|rio de janeiro|brazil|brasil/, 'America/Sao_Paulo'],
  [/buenos aires|argentina/, 'America/Argentina/Buenos_Aires'],
  [/london|manchester|england|\buk\b|united kingdom|dublin|ireland|lisbon|portugal/, 'Europe/London'],
  [/paris|france|berlin|germany|munich|madrid|spain|barcelona|rome|milan|italy|amsterdam|netherlands|brussels|vienna|zurich|stockholm|oslo|copenhagen|warsaw|prague/, 'Europe/Paris'],
  [/athens|greece|helsinki|kyiv|kiev|bucharest/, 'Europe/Athens'],
  [/cairo|egypt/, 'Africa/Cairo'],
  [/istanbul|turkey/, 'Europe/Istanbul'],
  [/moscow|russia/, 'Europe/Moscow'],
  [/dubai|abu dhabi|emirates/, 'Asia/Dubai'],
  [/mumbai|delhi|bangalore|bengaluru|\bindia\b/, 'Asia/Kolkata'],
  [/bangkok|thailand|jakarta|indonesia|ho chi minh|vietnam/, 'Asia/Bangkok'],
  [/singapore|kuala lumpur|malaysia|manila|philippines|hong kong|taipei|shanghai|beijing|china/, 'Asia/Singapore'],
  [/seoul|korea/, 'Asia/Seoul'],
  [/tokyo|osaka|japan/, 'Asia/Tokyo'],
  [/sydney|melbourne|australia/, 'Australia/Sydney'],
  [/auckland|new zealand/, 'Pacific/Auckland'],
];

/**
 * The timezone posts are planned in (contract §8): the character's own, else the one its identity's
 * location implies, else the app default.
 */
export function postingTimezone(character: { timezone: string | null; identity: { location?: string } }, appDefault: string): string {
  if (character.timezone && isTimeZone(character.timezone)) return character.timezone;
  const location = character.identity.location?.trim();
  if (location) {
    if (isTimeZone(location)) return location;
    const lower = location.toLowerCase();
    const match = PLACES.find(([pattern]) => pattern.test(lower));
    if (match) return match[1];
  }
  return appDefault;
}
