import { describe, expect, it } from '@jest/globals';
import { newId } from '../../../core/index.js';
import type { AccessClaims } from './access-tokens.js';
import { VerifiedTokens } from './verified-tokens.js';

const claims = (): AccessClaims => ({ userId: newId('user'), sessionId: newId('ses'), workspaceId: newId('ws') });

describe('VerifiedTokens', () => {
  it('answers the claims of a token remembered, by its exact text', () => {
    const tokens = new VerifiedTokens(10, () => 1_000_000);
    const c = claims();
    tokens.remember('a.b.c', c, 2_000);
    expect(tokens.claimsOf('a.b.c')).toBe(c);
    expect(tokens.claimsOf('a.b.d')).toBeUndefined();
    expect(tokens.claimsOf('a.b.c ')).toBeUndefined();
  });

  it('forgets a token once the clock reaches its exp, as jsonwebtoken refuses it then', () => {
    let now = 1_999_999;
    const tokens = new VerifiedTokens(10, () => now);
    tokens.remember('t', claims(), 2_000);
    expect(tokens.claimsOf('t')).toBeDefined();
    now = 2_000_000;
    expect(tokens.claimsOf('t')).toBeUndefined();
    expect(tokens.size).toBe(0);
  });

  it('makes room by forgetting the oldest token when full', () => {
    const tokens = new VerifiedTokens(2, () => 0);
    tokens.remember('one', claims(), 10);
    tokens.remember('two', claims(), 10);
    tokens.remember('two', claims(), 10);
    expect(tokens.size).toBe(2);
    tokens.remember('three', claims(), 10);
    expect(tokens.size).toBe(2);
    expect(tokens.claimsOf('one')).toBeUndefined();
    expect(tokens.claimsOf('two')).toBeDefined();
    expect(tokens.claimsOf('three')).toBeDefined();
  });
});
