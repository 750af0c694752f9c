import { describe, expect, it } from '@jest/globals';
import { CLIP_EXCERPT_CHARS, textExcerpt } from './audio-clip.js';

describe('textExcerpt', () => {
  it('keeps a text of up to the limit whole', () => {
    expect(textExcerpt('Hello there.')).toBe('Hello there.');
    expect(textExcerpt('x'.repeat(CLIP_EXCERPT_CHARS))).toBe('x'.repeat(CLIP_EXCERPT_CHARS));
  });

  it('cuts a longer one to the limit, ellipsis included, without a trailing space', () => {
    const cut = textExcerpt('word '.repeat(40));
    expect(Array.from(cut)).toHaveLength(CLIP_EXCERPT_CHARS);
    expect(cut.endsWith('word…')).toBe(true);
    expect(textExcerpt('abcdef', 4)).toBe('abc…');
    expect(textExcerpt('abc defgh', 5)).toBe('abc…');
  });

  it('never cuts a character outside the Basic Multilingual Plane in two', () => {
    const cut = textExcerpt('😀'.repeat(100), 10);
    expect(cut).toBe(`${'😀'.repeat(9)}…`);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(cut)).toBe(false);
  });
});
