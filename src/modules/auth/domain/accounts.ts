import type { Plan, Role, WorkspaceRole } from '../../../core/index.js';

export type UserStatus = 'active' | 'disabled';

export interface User {
  id: string;
  workspaceId: string;
  email: string;
  displayName: string;
  status: UserStatus;
  role: Role;
  locale: string;
  onboardingStep: string;
  /** Two-factor sign-in (TOTP) is in force. */
  mfaEnabled: boolean;
  /** An email on each sign-in from a device not seen in the last 90 days (off unless the user turns it on). */
  signInAlerts: boolean;
  createdAt: Date;
  /** When the current address was proven; null until then (contract: unverified accounts cannot publish, buy or make API keys). */
  emailVerifiedAt: Date | null;
}

export interface Workspace {
  id: string;
  name: string;
  plan: Plan;
  creditsBalance: number;
  createdAt: Date;
}

/** A workspace as the admin search shows it: with the email of an owner (null if it has none left). */
export interface WorkspaceWithOwner extends Workspace {
  ownerEmail: string | null;
}

/** A workspace a user belongs to, and the user's role there. */
export interface Membership {
  workspace: Workspace;
  role: WorkspaceRole;
  joinedAt: Date;
}

/** A user with the workspace it belongs to. */
export interface Account {
  user: User;
  workspace: Workspace;
}

export function workspaceNameFor(displayName: string): string {
  return `${displayName}'s workspace`;
}
