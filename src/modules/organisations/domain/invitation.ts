import type { WorkspaceRole } from '../../../core/index.js';

export interface Invitation {
  id: string;
  workspaceId: string;
  email: string;
  role: WorkspaceRole;
  invitedBy: string | null;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  declinedAt: Date | null;
  createdAt: Date;
}

/** A pending invitation as its invitee sees it: where it leads and who sent it, never its token. */
export interface ReceivedInvitation {
  invitation: Invitation;
  organisationName: string;
  inviter: { email: string; displayName: string } | null;
}

/** Accepted, revoked or declined: an invitation that can no longer be answered. */
export function isClosed(inv: Invitation): boolean {
  return inv.acceptedAt !== null || inv.revokedAt !== null || inv.declinedAt !== null;
}

export function sameEmail(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * Why an invitation cannot be answered (accepted or declined) by a user with `email` at `now`, or
 * null. A closed one is answered like an unknown one (`not_found`): a token works once, then it is
 * nothing, and a revoked or declined one is gone for good.
 */
export function invitationProblem(inv: Invitation | null, email: string, now: Date): 'not_found' | 'invitation_expired' | 'invitation_email_mismatch' | null {
  if (!inv || isClosed(inv)) return 'not_found';
  if (inv.expiresAt.getTime() <= now.getTime()) return 'invitation_expired';
  if (!sameEmail(inv.email, email)) return 'invitation_email_mismatch';
  return null;
}

/**
 * The same question asked by invitation id rather than token. The id is no secret, so an
 * invitation for someone else must look like no invitation at all: a mismatch reads as not found.
 */
export function invitationProblemById(inv: Invitation | null, email: string, now: Date): 'not_found' | 'invitation_expired' | null {
  if (!inv || !sameEmail(inv.email, email)) return 'not_found';
  return invitationProblem(inv, email, now) as 'not_found' | 'invitation_expired' | null;
}

/** Invitation tokens: a prefix that names them, then 32 random bytes. */
export const INVITATION_TOKEN_PATTERN = /^pinv_[A-Za-z0-9_-]{43}$/;

export function isInvitationToken(value: string): boolean {
  return INVITATION_TOKEN_PATTERN.test(value);
}
