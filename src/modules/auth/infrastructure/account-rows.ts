import type { Plan, Role } from '../../../core/index.js';
import type { Account, User, UserStatus, Workspace } from '../domain/accounts.js';

/** Column lists and row mappers shared by the queries that read users (`u`) and workspaces (`w`). */
export interface UserRow {
  id: string;
  workspace_id: string;
  email: string;
  display_name: string;
  status: UserStatus;
  role: Role;
  locale: string;
  onboarding_step: string;
  mfa_enabled: boolean;
  sign_in_alerts: boolean;
  created_at: Date;
  email_verified_at: Date | null;
}

export interface WorkspaceRow {
  id: string;
  name: string;
  plan: Plan;
  credits_balance: number;
  created_at: Date;
}

/** A user joined with a workspace (its home one, or a session's); the workspace columns carry a `ws_` prefix. */
export interface AccountRow extends UserRow {
  ws_id: string;
  ws_name: string;
  ws_plan: Plan;
  ws_credits_balance: number;
  ws_created_at: Date;
}

export const USER_COLUMNS = `u.id, u.workspace_id, u.email, u.display_name, u.status, u.role, u.locale, u.onboarding_step,
  u.totp_enabled_at IS NOT NULL AS mfa_enabled, u.sign_in_alerts, u.created_at, u.email_verified_at`;
export const WORKSPACE_COLUMNS = 'w.id, w.name, w.plan, w.credits_balance, w.created_at';
export const ACCOUNT_COLUMNS = `${USER_COLUMNS}, w.id AS ws_id, w.name AS ws_name, w.plan AS ws_plan,
  w.credits_balance AS ws_credits_balance, w.created_at AS ws_created_at`;

export function toUser(r: UserRow): User {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    email: r.email,
    displayName: r.display_name,
    status: r.status,
    role: r.role,
    locale: r.locale,
    onboardingStep: r.onboarding_step,
    mfaEnabled: r.mfa_enabled,
    signInAlerts: r.sign_in_alerts,
    createdAt: r.created_at,
    emailVerifiedAt: r.email_verified_at,
  };
}

export function toWorkspace(r: WorkspaceRow): Workspace {
  return { id: r.id, name: r.name, plan: r.plan, creditsBalance: r.credits_balance, createdAt: r.created_at };
}

export function toAccount(r: AccountRow): Account {
  return {
    user: toUser(r),
    workspace: toWorkspace({ id: r.ws_id, name: r.ws_name, plan: r.ws_plan, credits_balance: r.ws_credits_balance, created_at: r.ws_created_at }),
  };
}
