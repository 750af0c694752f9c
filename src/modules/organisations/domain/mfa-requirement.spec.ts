import { describe, expect, it } from '@jest/globals';
import { mfaRequirementProblem } from './mfa-requirement.js';

describe('who may set a workspace two-factor requirement', () => {
  it('only an owner, either way', () => {
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      expect(mfaRequirementProblem(role, true, true)).toBe('owner_only');
      expect(mfaRequirementProblem(role, true, false)).toBe('owner_only');
    }
  });

  it('an owner turning it on must have two-factor on themselves', () => {
    expect(mfaRequirementProblem('owner', false, true)).toBe('actor_without_mfa');
    expect(mfaRequirementProblem('owner', true, true)).toBeNull();
  });

  it('an owner may always turn it off', () => {
    expect(mfaRequirementProblem('owner', false, false)).toBeNull();
  });
});
