import { describe, expect, it } from '@jest/globals';
import { isId, newId, ulid } from './ids.js';

describe('ids', () => {
  it('makes prefixed 26-character Crockford ULIDs', () => {
    const id = newId('char');
    expect(id).toMatch(/^char_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(isId('char', id)).toBe(true);
  });

  it('encodes the time first so ids sort by creation', () => {
    expect(ulid(1000).slice(0, 10) < ulid(2000).slice(0, 10)).toBe(true);
    expect(ulid(0).slice(0, 10)).toBe('0000000000');
  });

  it('never repeats the random part, across many refills of the random pool', () => {
    const now = Date.now();
    const randomParts = new Set(Array.from({ length: 5000 }, () => ulid(now).slice(10)));
    expect(randomParts.size).toBe(5000);
  });

  it('spreads the random characters over the whole alphabet', () => {
    const seen = new Set(Array.from({ length: 200 }, () => ulid().slice(10)).join(''));
    expect(seen.size).toBe(32);
  });

  it('refuses another prefix, a bad shape and non-strings', () => {
    const id = newId('char');
    expect(isId('cnt', id)).toBe(false);
    expect(isId('char', `${id}0`)).toBe(false);
    expect(isId('char', id.toLowerCase())).toBe(false);
    expect(isId('char', 'char_01ARZ3NDEKTSV4RRFFQ69G5FAU'.replace('U', 'I'))).toBe(false);
    expect(isId('char', 42)).toBe(false);
  });
});
