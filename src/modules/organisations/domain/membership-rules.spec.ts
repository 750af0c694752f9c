import { describe, expect, it } from '@jest/globals';
import { hasFreeSeat, isSlug, mayGrant, memberChangeProblem, memberLimitOf } from './membership-rules.js';

const change = (over: Partial<Parameters<typeof memberChangeProblem>[0]>) =>
  memberChangeProblem({ actorId: 'a', actorRole: 'owner', targetId: 'b', targetRole: 'editor', newRole: 'viewer', ownerCount: 1, ...over });

describe('memberChangeProblem', () => {
  it('lets an owner change or remove another member', () => {
    expect(change({})).toBeNull();
    expect(change({ newRole: null })).toBeNull();
    expect(change({ newRole: 'owner' })).toBeNull();
  });

  it.each(['viewer', 'editor', 'admin'] as const)('refuses a %s changing or removing someone else', (actorRole) => {
    expect(change({ actorRole })).toBe('insufficient_role');
    expect(change({ actorRole, newRole: null })).toBe('insufficient_role');
    expect(change({ actorRole, newRole: 'owner' })).toBe('insufficient_role');
  });

  it('lets any member leave, but not change their own role unless owner', () => {
    expect(change({ actorRole: 'viewer', targetId: 'a', targetRole: 'viewer', newRole: null })).toBeNull();
    expect(change({ actorRole: 'admin', targetId: 'a', targetRole: 'admin', newRole: 'owner' })).toBe('insufficient_role');
  });

  it('keeps the last owner: no demotion, removal or leaving', () => {
    expect(change({ targetRole: 'owner', newRole: 'admin', ownerCount: 1 })).toBe('last_owner');
    expect(change({ targetRole: 'owner', newRole: null, ownerCount: 1 })).toBe('last_owner');
    expect(change({ targetId: 'a', targetRole: 'owner', newRole: null, ownerCount: 1 })).toBe('last_owner');
  });

  it('lets an owner go when another owner stays', () => {
    expect(change({ targetRole: 'owner', newRole: 'admin', ownerCount: 2 })).toBeNull();
    expect(change({ targetId: 'a', targetRole: 'owner', newRole: null, ownerCount: 2 })).toBeNull();
  });

  it('keeping an owner an owner is not losing one', () => {
    expect(change({ targetRole: 'owner', newRole: 'owner', ownerCount: 1 })).toBeNull();
  });
});

describe('mayGrant', () => {
  it('only an owner grants any role, owner included', () => {
    expect(mayGrant('owner', 'owner')).toBe(true);
    expect(mayGrant('admin', 'owner')).toBe(false);
    expect(mayGrant('admin', 'viewer')).toBe(false);
  });
});

describe('member limit', () => {
  it('is 1, 3 and 25 by plan', () => {
    expect([memberLimitOf('starter'), memberLimitOf('pro'), memberLimitOf('agency')]).toEqual([1, 3, 25]);
  });

  it('counts pending invitations as seats', () => {
    expect(hasFreeSeat('starter', 1, 0)).toBe(false);
    expect(hasFreeSeat('pro', 2, 0)).toBe(true);
    expect(hasFreeSeat('pro', 2, 1)).toBe(false);
    expect(hasFreeSeat('agency', 20, 4)).toBe(true);
  });
});

describe('isSlug', () => {
  it.each(['abc', 'acme-studio', 'a1-b2', 'x'.repeat(40)])('accepts %s', (s) => expect(isSlug(s)).toBe(true));
  it.each(['ab', 'Acme', 'acme studio', 'acme_studio', 'x'.repeat(41), 'é-abc'])('refuses %s', (s) => expect(isSlug(s)).toBe(false));
});
