import { describe, expect, it } from '@jest/globals';
import { invitationProblem, invitationProblemById, isInvitationToken, type Invitation } from './invitation.js';

const now = new Date('2030-01-01T00:00:00Z');
const inv = (over: Partial<Invitation> = {}): Invitation => ({
  id: 'inv_1',
  workspaceId: 'ws_1',
  email: 'Ada@Example.com',
  role: 'editor',
  invitedBy: 'user_1',
  expiresAt: new Date('2030-01-02T00:00:00Z'),
  acceptedAt: null,
  revokedAt: null,
  declinedAt: null,
  createdAt: new Date('2029-12-31T00:00:00Z'),
  ...over,
});

describe('invitationProblem', () => {
  it('accepts a pending invitation for the same email in any case', () => {
    expect(invitationProblem(inv(), 'ada@example.COM', now)).toBeNull();
  });

  it('answers an unknown or used invitation as not found', () => {
    expect(invitationProblem(null, 'ada@example.com', now)).toBe('not_found');
    expect(invitationProblem(inv({ acceptedAt: now }), 'ada@example.com', now)).toBe('not_found');
  });

  it('refuses an expired one, at its expiry instant too', () => {
    expect(invitationProblem(inv({ expiresAt: now }), 'ada@example.com', now)).toBe('invitation_expired');
  });

  it('refuses another email', () => {
    expect(invitationProblem(inv(), 'bob@example.com', now)).toBe('invitation_email_mismatch');
  });

  it('answers a revoked or declined invitation as not found, even for its invitee', () => {
    expect(invitationProblem(inv({ revokedAt: now }), 'ada@example.com', now)).toBe('not_found');
    expect(invitationProblem(inv({ declinedAt: now }), 'ada@example.com', now)).toBe('not_found');
  });
});

describe('invitationProblemById', () => {
  it('lets the invitee answer a pending invitation by id', () => {
    expect(invitationProblemById(inv(), ' ADA@example.com', now)).toBeNull();
  });

  it('answers the invitee as the token route does: expired 410, closed 404', () => {
    expect(invitationProblemById(inv({ expiresAt: now }), 'ada@example.com', now)).toBe('invitation_expired');
    expect(invitationProblemById(inv({ revokedAt: now }), 'ada@example.com', now)).toBe('not_found');
    expect(invitationProblemById(inv({ acceptedAt: now }), 'ada@example.com', now)).toBe('not_found');
  });

  it("answers someone else's invitation as not found, expired or not: an id reveals nothing", () => {
    expect(invitationProblemById(inv(), 'bob@example.com', now)).toBe('not_found');
    expect(invitationProblemById(inv({ expiresAt: now }), 'bob@example.com', now)).toBe('not_found');
    expect(invitationProblemById(null, 'bob@example.com', now)).toBe('not_found');
  });
});

describe('isInvitationToken', () => {
  it('knows the shape of a token', () => {
    expect(isInvitationToken(`pinv_${'A'.repeat(43)}`)).toBe(true);
    expect(isInvitationToken(`pinv_${'A'.repeat(42)}`)).toBe(false);
    expect(isInvitationToken('../etc/passwd')).toBe(false);
  });
});
