import { describe, expect, it } from '@jest/globals';
import { assertNoControlCharacters, findBadInput, MAX_JSON_DEPTH } from './input-guard.js';

/** `{"a": {"a": ... 1}}` with `levels` objects. */
function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i += 1) v = { a: v };
  return v;
}

describe('findBadInput', () => {
  it('takes a body nested exactly to the limit and refuses one level more, named by its top field', () => {
    expect(findBadInput(nested(MAX_JSON_DEPTH), { maxDepth: MAX_JSON_DEPTH, controls: 'none' })).toBeUndefined();
    expect(findBadInput(nested(MAX_JSON_DEPTH + 1), { maxDepth: MAX_JSON_DEPTH, controls: 'none' })).toEqual({
      field: 'a', message: 'JSON must not be nested deeper than 64 levels',
    });
  });

  it('walks hostile depths without recursion', () => {
    const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)) as unknown;
    expect(findBadInput(deep, { maxDepth: MAX_JSON_DEPTH, controls: 'none' })?.message).toMatch(/deeper than 64/);
    expect(findBadInput(deep, { controls: 'all' })).toBeUndefined();
  });

  it('finds a control character in any string or key, with its path', () => {
    expect(findBadInput({ name: 'a\u0000b' }, { controls: 'multiline' })).toEqual({ field: 'name', message: 'name must not contain control characters' });
    expect(findBadInput({ identity: { location: 'x\u001by' } }, { controls: 'multiline' })?.field).toBe('identity.location');
    expect(findBadInput({ presets: ['ok', 'b\u007f'] }, { controls: 'multiline' })?.field).toBe('presets.1');
    expect(findBadInput({ settings: { 'k\u0000': 1 } }, { controls: 'multiline' })?.field).toBe('settings');
    expect(findBadInput('a\u0085', { controls: 'all' })?.message).toBe('the value must not contain control characters');
  });

  it('lets line breaks and tabs through in multi-line text only', () => {
    const text = { caption: 'line one\nline two\r\n\tindented' };
    expect(findBadInput(text, { controls: 'multiline' })).toBeUndefined();
    expect(findBadInput(text, { controls: 'all' })?.field).toBe('caption');
    expect(findBadInput({ caption: 'plain, ünïcödé, emoji 🙂' }, { controls: 'all' })).toBeUndefined();
  });
});

describe('assertNoControlCharacters', () => {
  it('throws validation_failed with one detail naming the field', () => {
    expect(() => assertNoControlCharacters({ q: 'a\u0000' }, 'query')).toThrow(expect.objectContaining({
      code: 'validation_failed', details: [{ field: 'q', message: 'q must not contain control characters' }],
    }));
    expect(() => assertNoControlCharacters({ q: 'a\nb' }, 'query')).toThrow();
    expect(() => assertNoControlCharacters({ caption: 'a\nb' }, 'body')).not.toThrow();
  });
});
