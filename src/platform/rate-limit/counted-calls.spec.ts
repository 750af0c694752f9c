import { describe, expect, it } from '@jest/globals';
import { COUNTED_CALL_HEADER, CountedCalls } from './counted-calls.js';

describe('CountedCalls', () => {
  it('knows its own token and nothing else', () => {
    const calls = new CountedCalls();
    const header = calls.header();
    expect(calls.isCounted(header)).toBe(true);
    expect(calls.isCounted({})).toBe(false);
    expect(calls.isCounted({ [COUNTED_CALL_HEADER]: 'forged' })).toBe(false);
    expect(calls.isCounted({ [COUNTED_CALL_HEADER]: [header[COUNTED_CALL_HEADER]] })).toBe(false);
    expect(new CountedCalls().isCounted(header)).toBe(false);
  });
});
