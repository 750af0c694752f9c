import { describe, expect, it } from '@jest/globals';
import { destinationProblem, generateShortcode, isShortcode } from './affiliate-link.js';

const OWN = ['api.persona.test', 'app.persona.test'];

describe('destinationProblem', () => {
  it.each([
    'https://shop.example.com/item?id=1&ref=abc',
    'http://example.com',
    'https://example.com:8443/path#frag',
  ])('accepts %s', (url) => {
    expect(destinationProblem(url, OWN)).toBeNull();
  });

  it.each([
    ['javascript:alert(1)', 'http or https'],
    ['JavaScript:alert(1)', 'http or https'],
    ['data:text/html,<script>1</script>', 'http or https'],
    ['ftp://example.com/file', 'http or https'],
    ['mailto:a@example.com', 'http or https'],
    ['/relative/path', 'absolute'],
    ['example.com', 'absolute'],
    ['https://user:pass@example.com/', 'credentials'],
    ['https://user@example.com/', 'credentials'],
    ['https://example.com/a b', 'spaces'],
    ['https://API.persona.test/l/abc', 'this service'],
    ['https://app.persona.test./', 'this service'],
    ['', 'empty'],
  ])('refuses %s', (url, why) => {
    expect(destinationProblem(url, OWN)).toContain(why);
  });

  it('refuses more than 2048 characters, and accepts exactly 2048', () => {
    const base = 'https://example.com/';
    expect(destinationProblem(base + 'a'.repeat(2048 - base.length), OWN)).toBeNull();
    expect(destinationProblem(base + 'a'.repeat(2049 - base.length), OWN)).toContain('2048');
  });
});

describe('shortcodes', () => {
  it.each(['abc', 'Spring_Sale-2025', 'a'.repeat(32), '0-_'])('accepts %s', (code) => {
    expect(isShortcode(code)).toBe(true);
  });

  it.each(['ab', 'a'.repeat(33), 'with space', 'ümlaut', 'a/b', 'a.b', ''])('refuses %s', (code) => {
    expect(isShortcode(code)).toBe(false);
  });

  it('generates 8 base-62 characters that pass the rule, different each time', () => {
    const codes = Array.from({ length: 200 }, () => generateShortcode());
    for (const c of codes) expect(c).toMatch(/^[0-9A-Za-z]{8}$/);
    expect(new Set(codes).size).toBe(200);
  });

  it('skips the bytes that would bias the alphabet', () => {
    const bytes = [255, 248, 0, 61, 62, 247, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(generateShortcode(8, (n) => Uint8Array.from(bytes.slice(0, n)))).toBe('0z0z1234');
  });
});
