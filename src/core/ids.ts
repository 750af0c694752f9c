import { randomFillSync } from 'node:crypto';

/** Every id prefix the service hands out (contract §1). */
export const ID_PREFIXES = [
  'user', 'ws', 'char', 'ref', 'cnt', 'job', 'sch', 'mkt', 'pur', 'rev', 'key', 'int',
  'lora', 'limg', 'voice', 'aud', 'th', 'mt', 'ep', 'led', 'ses', 'req', 'rtk', 'inv', 'log',
  'evt', 'mail', 'atk', 'rcv', 'exp', 'whe', 'whd', 'cnv', 'cmsg', 'lnk', 'rvn',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_SHAPE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * Random bytes drawn 4 KiB at a time, as `crypto.randomUUID` does: one system call per 256 ids
 * instead of one per id (every request makes at least one, its request id). Each id's bytes are
 * read before the pool can be refilled, and are never handed out twice.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomChunk(size: number): Buffer {
  if (poolAt + size > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += size;
  return pool.subarray(poolAt - size, poolAt);
}

/** A 26-character ULID: 48-bit millisecond time then 80 random bits, Crockford base32. */
export function ulid(now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomChunk(16);
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
