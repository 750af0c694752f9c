import type { WorkspaceRole } from '../../../core/index.js';

export interface Invitation {
  id: string;
  workspaceId: string;
  email: string;
  role: WorkspaceRole;
  invitedBy: string | null;
  expiresAt: Date;
  acceptedAt: Date | null;
  createdAt: Date;
}

/**
 * Why an invitation cannot be accepted by a user with `email` at `now`, or null. A used one is
 * answered like an unknown one (`not_found`): a token works once, then it is nothing.
 */
export function invitationProblem(inv: Invitation | null, email: string, now: Date): 'not_found' | 'invitation_expired' | 'invitation_email_mismatch' | null {
  if (!inv || inv.acceptedAt) return 'not_found';
  if (inv.expiresAt.getTime() <= now.getTime()) return 'invitation_expired';
  if (inv.email.toLowerCase() !== email.toLowerCase()) return 'invitation_email_mismatch';
  return null;
}

/** Invitation tokens: a prefix that names them, then 32 random bytes. */
export const INVITATION_TOKEN_PATTERN = /^pinv_[A-Za-z0-9_-]{43}$/;

export function isInvitationToken(value: string): boolean {
  return INVITATION_TOKEN_PATTERN.test(value);
}
