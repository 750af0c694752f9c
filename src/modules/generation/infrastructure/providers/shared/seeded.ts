import { createHash } from 'node:crypto';

/** A 32-bit seed from request fields: the same request always renders the same bytes. */
export function seedFrom(...parts: Array<string | number | undefined>): number {
  const digest = createHash('sha256').update(parts.map((p) => String(p ?? '')).join('\u0000')).digest();
  return digest.readUInt32BE(0);
}

/** mulberry32: a tiny, fast PRNG; good enough for picking colours and templates. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length) % items.length];
}
