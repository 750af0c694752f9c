import { describe, expect, it } from '@jest/globals';
import { invitationProblem, isInvitationToken, type Invitation } from './invitation.js';

const now = new Date('2030-01-01T00:00:00Z');
const inv = (over: Partial<Invitation> = {}): Invitation => ({
  id: 'inv_1',
  workspaceId: 'ws_1',
  email: 'Ada@Example.com',
  role: 'editor',
  invitedBy: 'user_1',
  expiresAt: new Date('2030-01-02T00:00:00Z'),
  acceptedAt: null,
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
});

describe('isInvitationToken', () => {
  it('knows the shape of a token', () => {
    expect(isInvitationToken(`pinv_${'A'.repeat(43)}`)).toBe(true);
    expect(isInvitationToken(`pinv_${'A'.repeat(42)}`)).toBe(false);
    expect(isInvitationToken('../etc/passwd')).toBe(false);
  });
});
