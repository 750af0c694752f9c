import { describe, expect, it } from '@jest/globals';
import { SCOPES } from '../../../core/index.js';
import { expiryProblem, needsUsageTouch, scopeListProblem } from './api-key-rules.js';

describe('scope lists', () => {
  it('accepts any non-empty list of distinct known scopes', () => {
    expect(scopeListProblem(['credits:read'])).toBeNull();
    expect(scopeListProblem([...SCOPES])).toBeNull();
    expect(scopeListProblem(['content:read', 'content:publish'])).toBeNull();
  });

  it('refuses a missing, empty, unknown, repeated or non-string list', () => {
    expect(scopeListProblem(undefined)).toMatch(/list/);
    expect(scopeListProblem('credits:read')).toMatch(/list/);
    expect(scopeListProblem([])).toMatch(/at least one/);
    expect(scopeListProblem(['credits:read', 'admin:all'])).toMatch(/one of/);
    expect(scopeListProblem(['CREDITS:READ'])).toMatch(/one of/);
    expect(scopeListProblem([42])).toMatch(/one of/);
    expect(scopeListProblem(['credits:read', 'credits:read'])).toMatch(/repeat/);
  });
});

describe('expiry', () => {
  const now = new Date('2030-06-01T12:00:00Z');

  it('accepts a parseable moment after now', () => {
    expect(expiryProblem('2030-06-01T12:00:01Z', now)).toBeNull();
    expect(expiryProblem('2031-01-01', now)).toBeNull();
  });

  it('refuses now, the past and non-timestamps', () => {
    expect(expiryProblem('2030-06-01T12:00:00Z', now)).toMatch(/future/);
    expect(expiryProblem('2020-01-01T00:00:00Z', now)).toMatch(/future/);
    expect(expiryProblem('tomorrow', now)).toMatch(/ISO 8601/);
    expect(expiryProblem(1893456000000, now)).toMatch(/ISO 8601/);
  });
});

describe('last use', () => {
  const now = new Date('2030-06-01T12:00:00Z');

  it('refreshes last use only when it is a minute stale or never recorded', () => {
    expect(needsUsageTouch(null, now)).toBe(true);
    expect(needsUsageTouch(new Date(now.getTime() - 59_999), now)).toBe(false);
    expect(needsUsageTouch(new Date(now.getTime() - 60_000), now)).toBe(true);
  });
});
