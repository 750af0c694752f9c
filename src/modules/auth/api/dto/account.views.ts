import { PLAN_LIMITS } from '../../../../core/index.js';
import type { User, Workspace } from '../../domain/accounts.js';
import type { SignedIn } from '../../application/auth.service.js';

/** Wire shapes of accounts (contract §3). */
export function userBody(u: User) {
  return {
    id: u.id,
    email: u.email,
    display_name: u.displayName,
    status: u.status,
    role: u.role,
    locale: u.locale,
    onboarding_step: u.onboardingStep,
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
  };
}
