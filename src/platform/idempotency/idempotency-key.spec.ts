import { describe, expect, it } from '@jest/globals';
import { assertValidKey, canonicalJson, decideOnExisting, requestHash } from './idempotency-key.js';

describe('idempotency keys', () => {
  it('accepts 1 to 255 printable ASCII characters', () => {
    expect(() => assertValidKey('a')).not.toThrow();
    expect(() => assertValidKey('order 42: retry #1 ~!')).not.toThrow();
    expect(() => assertValidKey('x'.repeat(255))).not.toThrow();
    for (const bad of ['', 'x'.repeat(256), 'tab\there', 'naïve', 'line\nbreak']) {
      expect(() => assertValidKey(bad)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    }
  });

  it('hashes the same request the same, whatever the key order of its body', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: null }] })).toBe('{"a":[{"c":null,"d":2}],"b":1}');
    expect(requestHash('post', '/x', { a: 1, b: 2 })).toBe(requestHash('POST', '/x', { b: 2, a: 1 }));
    expect(requestHash('POST', '/x', undefined)).toBe(requestHash('POST', '/x', {}));
    expect(requestHash('POST', '/x', { a: 1 })).not.toBe(requestHash('POST', '/x', { a: 2 }));
    expect(requestHash('POST', '/x', {})).not.toBe(requestHash('POST', '/y', {}));
  });

  it('replays a finished request, refuses a different one (422) and a running one (409)', () => {
    const done = { requestHash: 'h', status: 'completed' as const, responseStatus: 201, responseBody: { ok: true } };
    expect(decideOnExisting(done, 'h')).toEqual({ kind: 'replay', status: 201, body: { ok: true } });
    expect(() => decideOnExisting(done, 'other')).toThrow(expect.objectContaining({ code: 'idempotency_key_reused' }));
    const running = { ...done, status: 'in_progress' as const, responseStatus: null, responseBody: null };
    expect(() => decideOnExisting(running, 'h')).toThrow(expect.objectContaining({ code: 'idempotency_in_progress' }));
    expect(() => decideOnExisting(running, 'other')).toThrow(expect.objectContaining({ code: 'idempotency_key_reused' }));
  });
});
