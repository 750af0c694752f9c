import type { Plan } from './plans.js';

export const SCOPES = [
  'characters:read',
  'characters:write',
  'content:generate',
  'content:read',
  'content:publish',
  'credits:read',
] as const;
export type Scope = (typeof SCOPES)[number];

/** The platform role: `admin` runs the service (admin routes), every other account is a `user`. */
export type Role = 'user' | 'admin';

/**
 * A member's role in one workspace (contract §14), lowest first: viewer reads; editor creates,
 * generates, moderates, schedules and publishes; admin also manages integrations, API keys, the
 * marketplace and branding; owner also members, plan and deletion.
 */
export const WORKSPACE_ROLES = ['viewer', 'editor', 'admin', 'owner'] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

export function roleAtLeast(held: WorkspaceRole, needed: WorkspaceRole): boolean {
  return WORKSPACE_ROLES.indexOf(held) >= WORKSPACE_ROLES.indexOf(needed);
}

/** An API key acts with the role of the member who made it, never above admin. */
export function apiKeyRole(memberRole: WorkspaceRole): WorkspaceRole {
  return roleAtLeast(memberRole, 'admin') ? 'admin' : memberRole;
}

/** Who is calling: resolved once per request by the global guard. */
export interface Caller {
  kind: 'session' | 'api_key';
  userId: string;
  workspaceId: string;
  role: Role;
  /** The caller's role in `workspaceId` (an API key's: its maker's, capped at admin). */
  workspaceRole: WorkspaceRole;
  plan: Plan;
  scopes: readonly Scope[];
  sessionId?: string;
  apiKeyId?: string;
  /**
   * Whether the session's user has proven their email address. Set by the session check; absent
   * counts as unverified. API keys do not carry it: their maker had to be verified to make them.
   */
  emailVerified?: boolean;
  /**
   * The workspace requires two-factor sign-in and this user has not enabled it: the access guard
   * refuses every product route but those needed to comply (403 `mfa_required`).
   */
  mfaRequirementUnmet?: boolean;
}

/** An API key can never do more than the scopes it was given. */
export function isGranted(held: readonly Scope[], needed: readonly Scope[]): boolean {
  return needed.every((s) => held.includes(s));
}

/** API key secrets start with this; access tokens are JWTs. The prefix tells them apart. */
export const API_KEY_PREFIX = 'psk_';
