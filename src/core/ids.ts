import { randomBytes } from 'node:crypto';

/** Every id prefix the service hands out (contract §1). */
export const ID_PREFIXES = [
  'user', 'ws', 'char', 'ref', 'cnt', 'job', 'sch', 'mkt', 'pur', 'rev', 'key', 'int',
  'lora', 'limg', 'voice', 'th', 'mt', 'ep', 'led', 'ses', 'req', 'rtk',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_SHAPE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** A 26-character ULID: 48-bit millisecond time then 80 random bits, Crockford base32. */
export function ulid(now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[bytes[i] % 32];
  return time + rand;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

/** True when `value` is an id of exactly this prefix and shape; anything else is answered as missing. */
export function isId(prefix: IdPrefix, value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== prefix.length + 27) return false;
  return value.startsWith(`${prefix}_`) && ULID_SHAPE.test(value.slice(prefix.length + 1));
}
