import { describe, expect, it } from '@jest/globals';
import { COUNTED_CALL_HEADER, CountedCalls } from './counted-calls.js';

describe('CountedCalls', () => {
  it('knows its own token and nothing else', () => {
    const calls = new CountedCalls();
    const header = calls.header();
    expect(calls.isCounted(header, '127.0.0.1')).toBe(true);
    expect(calls.isCounted(header, '::1')).toBe(true);
    expect(calls.isCounted({}, '127.0.0.1')).toBe(false);
    expect(calls.isCounted({ [COUNTED_CALL_HEADER]: 'forged' }, '127.0.0.1')).toBe(false);
    expect(calls.isCounted({ [COUNTED_CALL_HEADER]: [header[COUNTED_CALL_HEADER]] }, '127.0.0.1')).toBe(false);
    expect(new CountedCalls().isCounted(header, '127.0.0.1')).toBe(false);
  });

  it('honours its token only from loopback', () => {
    const calls = new CountedCalls();
    expect(calls.isCounted(calls.header(), '203.0.113.9')).toBe(false);
    expect(calls.isCounted(calls.header(), undefined)).toBe(false);
  });
});
