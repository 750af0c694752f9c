import { describe, expect, it } from '@jest/globals';
import { MediaUrls } from './media-urls.js';
import type { Storage } from './storage.types.js';

/** A storage that signs by naming the key and expiry, and counts its signatures. */
function countingStorage() {
  const signed: Array<[string, number]> = [];
  const storage = {
    urlFor: (key: string) => `http://media.test/${key}`,
    signedUrl: (key: string, expires: number) => {
      signed.push([key, expires]);
      return `http://media.test/${key}?expires=${expires}&sig=${signed.length}`;
    },
  } as unknown as Storage;
  return { storage, signed };
}

describe('MediaUrls.sign', () => {
  it('signs a key once per expiry step, answering the same URL to every read within it', () => {
    const { storage, signed } = countingStorage();
    // 10 s into a 5-minute step: a minute later still rounds to the same expiry.
    let now = Date.UTC(2026, 10, 28, 12, 0, 10);
    const urls = new MediaUrls(storage, 3600, [], () => now);
    const first = urls.sign('characters/char_1/a.png');
    now += 60_000;
    expect(urls.sign('characters/char_1/a.png')).toBe(first);
    expect(signed).toHaveLength(1);
    // Another key is its own signature.
    expect(urls.sign('characters/char_1/b.png')).not.toBe(first);
    expect(signed).toHaveLength(2);
  });

  it('signs afresh once the rounded expiry moves on, so a URL never lives past its life plus one step', () => {
    const { storage, signed } = countingStorage();
    let now = Date.UTC(2026, 10, 28, 12, 0, 0);
    const urls = new MediaUrls(storage, 3600, [], () => now);
    const first = urls.sign('k/a.png');
    now += 301_000;
    const later = urls.sign('k/a.png');
    expect(later).not.toBe(first);
    expect(signed).toHaveLength(2);
    expect(signed[1][1] - Math.floor(now / 1000)).toBeGreaterThanOrEqual(3600);
    expect(signed[1][1] - Math.floor(now / 1000)).toBeLessThanOrEqual(3600 + 300);
  });

  it('keeps a short-lived URL to its own life: a 60 s URL is rounded to 15 s, not 5 minutes', () => {
    const { storage, signed } = countingStorage();
    const now = Date.UTC(2026, 10, 28, 12, 0, 7);
    const urls = new MediaUrls(storage, 3600, [], () => now);
    urls.sign('k/a.png', 60);
    expect(signed[0][1] - Math.floor(now / 1000)).toBeGreaterThanOrEqual(60);
    expect(signed[0][1] - Math.floor(now / 1000)).toBeLessThanOrEqual(75);
  });
});
