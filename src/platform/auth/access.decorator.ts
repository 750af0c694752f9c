import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import type { Caller, Plan, Role, Scope, WorkspaceRole } from '../../core/index.js';
import { ApiErrors } from '../http/api-docs.js';

export const ACCESS_KEY = 'ps:access';

/**
 * How a route may be reached. `open`: no credentials (register, login, health, OAuth callback).
 * `product`: session tokens only; `mfaExempt` routes stay open to a member whose workspace requires
 * two-factor sign-in they have not enabled yet (what they need to comply: enable it, see who they
 * are, sign out, switch workspace). `public`: API keys only, with scopes.
 */
export type AccessRule =
  | { surface: 'open'; authLimit?: boolean; openLimit?: boolean }
  | { surface: 'product'; plans?: Plan[]; roles?: Role[]; verifiedEmail?: boolean; mfaExempt?: boolean }
  | { surface: 'public'; scopes: Scope[] };

/** One declaration per route; the global guard refuses any route without it. */
export function Access(rule: AccessRule): MethodDecorator & ClassDecorator {
  // An open route under the per-address limit may answer 429 without declaring it itself.
  const docs = rule.surface === 'open' ? (rule.openLimit ? [ApiErrors('rate_limited')] : []) : rule.surface === 'public' ? [ApiSecurity('api_key')] : [ApiBearerAuth()];
  if (rule.surface === 'product' && rule.verifiedEmail) docs.push(ApiErrors('email_not_verified'));
  return applyDecorators(SetMetadata(ACCESS_KEY, rule), ...docs);
}

export const Open = (opts: { authLimit?: boolean; openLimit?: boolean } = {}) => Access({ surface: 'open', ...opts });
/**
 * `verifiedEmail`: only a user whose email address is verified may call it (publishing, buying,
 * making API keys); others are refused with 403 `email_not_verified`.
 * `mfaExempt`: reachable by a member a workspace's two-factor requirement otherwise refuses (what they need to comply).
 */
export const Product = (opts: { plans?: Plan[]; roles?: Role[]; verifiedEmail?: boolean; mfaExempt?: boolean } = {}) => Access({ surface: 'product', ...opts });
export const PublicApi = (...scopes: Scope[]) => Access({ surface: 'public', scopes });

export const MIN_ROLE_KEY = 'ps:min-role';

/**
 * The lowest workspace role that may call a route (contract §14): viewer reads, editor works on
 * content, admin manages integrations, keys, the marketplace and branding, owner members and plan.
 * On a controller it covers every route the controller has; on a route it overrides the
 * controller's. Every product and public route must have one (the route audit refuses to boot
 * otherwise), except platform-admin routes, which no workspace role opens.
 */
export function MinRole(role: WorkspaceRole): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(MIN_ROLE_KEY, role), ApiErrors('insufficient_role'));
}

/** The authenticated caller of this request. */
export const CurrentCaller = createParamDecorator((_data: unknown, ctx: ExecutionContext): Caller => {
  const req = ctx.switchToHttp().getRequest<{ caller?: Caller }>();
  if (!req.caller) throw new Error('CurrentCaller used on a route without authentication');
  return req.caller;
});
