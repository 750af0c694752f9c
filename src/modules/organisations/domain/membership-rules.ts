import { PLAN_LIMITS, roleAtLeast, type Plan, type WorkspaceRole } from '../../../core/index.js';

/** Why a membership change is refused, or null when it may go ahead. */
export type MemberChangeProblem = 'insufficient_role' | 'last_owner' | null;

/** Who manages members: owners only (contract §14); so only an owner can grant or take `owner`. */
export const MEMBER_MANAGER_ROLE: WorkspaceRole = 'owner';

export function mayGrant(actorRole: WorkspaceRole, _granted: WorkspaceRole): boolean {
  return roleAtLeast(actorRole, MEMBER_MANAGER_ROLE);
}

/**
 * A change of one member's role (`newRole`) or their removal (`newRole` null), as the actor asks
 * it. Anyone may remove themself (leave); everything else needs an owner. Whoever asks, the
 * workspace must keep at least one owner.
 */
export function memberChangeProblem(c: {
  actorId: string;
  actorRole: WorkspaceRole;
  targetId: string;
  targetRole: WorkspaceRole;
  newRole: WorkspaceRole | null;
  ownerCount: number;
}): MemberChangeProblem {
  const leaving = c.newRole === null && c.actorId === c.targetId;
  if (!leaving && !mayGrant(c.actorRole, c.newRole ?? c.targetRole)) return 'insufficient_role';
  const losesOwner = c.targetRole === 'owner' && c.newRole !== 'owner';
  if (losesOwner && c.ownerCount <= 1) return 'last_owner';
  return null;
}

/** Members and pending invitations both take a seat: an invitation reserves the seat it will fill. */
export function memberLimitOf(plan: Plan): number {
  return PLAN_LIMITS[plan].memberLimit;
}

export function hasFreeSeat(plan: Plan, members: number, pendingInvitations: number): boolean {
  return members + pendingInvitations < memberLimitOf(plan);
}

/** A workspace slug: lower case letters, digits and hyphens, 3 to 40 of them. */
export const SLUG_PATTERN = /^[a-z0-9-]{3,40}$/;

export function isSlug(value: string): boolean {
  return SLUG_PATTERN.test(value);
}
