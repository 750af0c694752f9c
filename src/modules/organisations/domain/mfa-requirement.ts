import type { WorkspaceRole } from '../../../core/index.js';

/**
 * Why a member may not change whether the workspace requires two-factor sign-in, or null when they
 * may: only an owner sets it, and an owner turning it on must have it themselves (the requirement
 * would otherwise shut them out of their own workspace's routes the moment it commits).
 */
export function mfaRequirementProblem(role: WorkspaceRole, actorHasMfa: boolean, requireMfa: boolean): 'owner_only' | 'actor_without_mfa' | null {
  if (role !== 'owner') return 'owner_only';
  if (requireMfa && !actorHasMfa) return 'actor_without_mfa';
  return null;
}
