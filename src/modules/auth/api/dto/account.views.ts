import { ApiProperty } from '@nestjs/swagger';
import { PLAN_LIMITS, PLANS, WORKSPACE_ROLES } from '../../../../core/index.js';
import type { Membership, User, Workspace } from '../../domain/accounts.js';
import type { SignedIn } from '../../application/auth.service.js';

/** Wire shapes of accounts (contract §3). */
export function userBody(u: User) {
  return {
    id: u.id,
    email: u.email,
    email_verified: u.emailVerifiedAt !== null,
    display_name: u.displayName,
    status: u.status,
    role: u.role,
    locale: u.locale,
    onboarding_step: u.onboardingStep,
    mfa_enabled: u.mfaEnabled,
    sign_in_alerts: u.signInAlerts,
    created_at: u.createdAt.toISOString(),
  };
}

export function workspaceBody(w: Workspace) {
  return {
    id: w.id,
    name: w.name,
    plan: w.plan,
    credits_balance: w.creditsBalance,
    character_limit: PLAN_LIMITS[w.plan].characterLimit,
    created_at: w.createdAt.toISOString(),
  };
}

export function signedInBody(s: SignedIn) {
  return {
    user: userBody(s.user),
    access_token: s.accessToken,
    refresh_token: s.refreshToken,
    token_type: 'Bearer' as const,
    expires_in: s.expiresIn,
    ...(s.deletionCancelled && { deletion_cancelled: true as const }),
  };
}

/** OpenAPI shapes of the bodies above. */
export class UserView {
  @ApiProperty({ example: 'user_01J0000000000000000000000' }) id!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ description: 'Whether the address is verified; until it is, publishing, buying and creating API keys answer 403 email_not_verified.' }) email_verified!: boolean;
  @ApiProperty() display_name!: string;
  @ApiProperty({ enum: ['active', 'disabled'] }) status!: string;
  @ApiProperty({ enum: ['user', 'admin'] }) role!: string;
  @ApiProperty({ example: 'en' }) locale!: string;
  @ApiProperty({ example: 'welcome' }) onboarding_step!: string;
  @ApiProperty({ description: 'Two-factor sign-in (TOTP) is on.' }) mfa_enabled!: boolean;
  @ApiProperty({ description: 'An email on each sign-in from a new device (PUT /auth/preferences).' }) sign_in_alerts!: boolean;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class WorkspaceView {
  @ApiProperty({ example: 'ws_01J0000000000000000000000' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: PLANS }) plan!: string;
  @ApiProperty({ type: 'integer' }) credits_balance!: number;
  @ApiProperty({ type: 'integer' }) character_limit!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class SignedInView {
  @ApiProperty({ type: UserView }) user!: UserView;
  @ApiProperty() access_token!: string;
  @ApiProperty() refresh_token!: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type!: string;
  @ApiProperty({ type: 'integer', example: 3600 }) expires_in!: number;
}

export class MembershipView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: PLANS }) plan!: string;
  @ApiProperty({ enum: WORKSPACE_ROLES }) role!: string;
}

export class MeView {
  @ApiProperty({ type: UserView }) user!: UserView;
  @ApiProperty({ type: WorkspaceView, description: "The token's workspace." }) workspace!: WorkspaceView;
  @ApiProperty({ enum: WORKSPACE_ROLES, description: 'Your role in that workspace.' }) workspace_role!: string;
  @ApiProperty({ type: [MembershipView], description: 'Every workspace you belong to (switch with POST /auth/switch-workspace).' }) workspaces!: MembershipView[];
}

export class SwitchedView extends SignedInView {
  @ApiProperty({ type: MembershipView }) workspace!: MembershipView;
}

export function membershipBody(m: Membership) {
  return { id: m.workspace.id, name: m.workspace.name, plan: m.workspace.plan, role: m.role };
}
