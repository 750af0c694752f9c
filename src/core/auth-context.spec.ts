import { describe, expect, it } from '@jest/globals';
import { isGranted } from './auth-context.js';

describe('isGranted', () => {
  it('grants only when every needed scope is held', () => {
    expect(isGranted(['characters:read', 'content:read'], ['characters:read'])).toBe(true);
    expect(isGranted(['characters:read'], ['characters:read', 'characters:write'])).toBe(false);
    expect(isGranted([], ['credits:read'])).toBe(false);
  });
});
