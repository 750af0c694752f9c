import { describe, expect, it } from '@jest/globals';
import { MediaSigner } from './media-signature.js';
import { MediaUrls } from './media-urls.js';
import { LocalStorage } from './local-storage.js';

const KEY = 'characters/char_01HZX6FQJ5N6E7T2M3A4B5C6D7/ref_01HZX6FQJ5N6E7T2M3A4B5C6D8.png';
const NOW = 1_750_000_000;

describe('MediaSigner', () => {
  const signer = new MediaSigner('k'.repeat(43));
  const sig = signer.signature(KEY, NOW + 60);

  it('accepts its own signature until the expiry and tells the remaining life', () => {
    expect(signer.verify(KEY, String(NOW + 60), sig, NOW)).toEqual({ key: KEY, remainingSeconds: 60 });
    expect(signer.verify(KEY, String(NOW + 60), sig, NOW + 59)).toEqual({ key: KEY, remainingSeconds: 1 });
  });

  it('refuses an expired URL', () => {
    expect(signer.verify(KEY, String(NOW + 60), sig, NOW + 60)).toBeNull();
    expect(signer.verify(KEY, String(NOW + 60), sig, NOW + 3600)).toBeNull();
  });

  it('refuses a tampered expiry, path or signature, and another key’s signature', () => {
    expect(signer.verify(KEY, String(NOW + 61), sig, NOW)).toBeNull();
    expect(signer.verify(KEY.replace('D8', 'D9'), String(NOW + 60), sig, NOW)).toBeNull();
    const flipped = `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`;
    expect(signer.verify(KEY, String(NOW + 60), flipped, NOW)).toBeNull();
    expect(new MediaSigner('x'.repeat(43)).verify(KEY, String(NOW + 60), sig, NOW)).toBeNull();
  });

  it('refuses missing, repeated or malformed parameters without comparing anything', () => {
    for (const [expires, signature] of [
      [undefined, sig], [String(NOW + 60), undefined], [[String(NOW + 60)], sig], [String(NOW + 60), [sig]],
      ['0x10', sig], ['-1', sig], ['1e12', sig], [`${NOW + 60} `, sig], ['9'.repeat(13), sig], [String(NOW + 60), `${sig}=`], [String(NOW + 60), ''],
    ] as Array<[unknown, unknown]>) {
      expect(signer.verify(KEY, expires, signature, NOW)).toBeNull();
    }
  });

  it('refuses path traversal and odd keys even with a signature made for them', () => {
    for (const bad of ['../secrets.json', 'characters/../../secrets.json', 'characters/%2e%2e/x.png', 'a/.hidden.png', '/etc/passwd', 'a//b.png', 'a/b.png/']) {
      expect(signer.verify(bad, String(NOW + 60), signer.signature(bad, NOW + 60), NOW)).toBeNull();
    }
    expect(signer.verify(['characters', '..', 'x.png'], String(NOW + 60), sig, NOW)).toBeNull();
  });
});

describe('MediaUrls', () => {
  const signer = new MediaSigner('k'.repeat(43));
  let now = NOW * 1000;
  const urls = new MediaUrls(new LocalStorage('/nonexistent', 'http://api.test', signer), 3600, ['http://api.test/api/v1/media'], () => now);

  it('signs a key for the answer life (rounded up to five minutes) or for a given one', () => {
    const url = new URL(urls.sign(KEY));
    expect(url.pathname).toBe(`/api/v1/media/${KEY}`);
    const expires = Number(url.searchParams.get('expires'));
    expect(expires - NOW).toBeGreaterThanOrEqual(3600);
    expect(expires - NOW).toBeLessThan(3600 + 300);
    expect(expires % 300).toBe(0);
    expect(signer.verify(KEY, url.searchParams.get('expires'), url.searchParams.get('signature'), NOW)).not.toBeNull();
    const day = new URL(urls.sign(KEY, 86_400));
    expect(Number(day.searchParams.get('expires')) - NOW).toBeGreaterThanOrEqual(86_400);
  });

  it('answers the same URL within one step and a fresh one later', () => {
    const first = urls.sign(KEY);
    now += 1000;
    expect(urls.sign(KEY)).toBe(first);
    now += 600_000;
    expect(urls.sign(KEY)).not.toBe(first);
  });

  it('reads the key back out of our URLs, signed or plain, and nothing out of others', () => {
    expect(urls.keyOf(urls.sign(KEY))).toBe(KEY);
    expect(urls.keyOf(`http://api.test/api/v1/media/${KEY}`)).toBe(KEY);
    expect(urls.plain(urls.sign(KEY))).toBe(`http://api.test/api/v1/media/${KEY}`);
    for (const other of [`https://cdn.example/${KEY}`, `http://api.test/api/v1/media/../${KEY}`, 'http://api.test/api/v1/media/x.png', `http://api.test.evil/api/v1/media/${KEY}`]) {
      expect(urls.keyOf(other)).toBeNull();
      expect(urls.plain(other)).toBe(other);
    }
  });

  it('signs a kept URL only when its key is in the owner’s folder', () => {
    const plain = `http://api.test/api/v1/media/${KEY}`;
    expect(urls.keyOf(urls.signKept(plain, ['characters/char_01HZX6FQJ5N6E7T2M3A4B5C6D7/']))).toBe(KEY);
    expect(urls.signKept(plain, ['characters/char_01HZX6FQJ5N6E7T2M3A4B5C6D7/'])).toContain('signature=');
    expect(urls.signKept(plain, ['characters/char_01HZX6FQJ5N6E7T2M3A4B5C6ZZ/'])).toBe(plain);
    expect(urls.signKept('https://example.com/face.png', ['characters/'])).toBe('https://example.com/face.png');
  });
});
