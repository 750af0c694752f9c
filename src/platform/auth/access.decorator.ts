import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import type { Caller, Plan, Role, Scope } from '../../core/index.js';

export const ACCESS_KEY = 'ps:access';

/**
 * How a route may be reached. `open`: no credentials (register, login, health, OAuth callback).
 * `product`: session tokens only. `public`: API keys only, with scopes.
 */
export type AccessRule =
  | { surface: 'open'; authLimit?: boolean }
  | { surface: 'product'; plans?: Plan[]; roles?: Role[] }
  | { surface: 'public'; scopes: Scope[] };

/** One declaration per route; the global guard refuses any route without it. */
export function Access(rule: AccessRule): MethodDecorator & ClassDecorator {
  const docs = rule.surface === 'open' ? [] : rule.surface === 'public' ? [ApiSecurity('api_key')] : [ApiBearerAuth()];
  return applyDecorators(SetMetadata(ACCESS_KEY, rule), ...docs);
}

export const Open = (opts: { authLimit?: boolean } = {}) => Access({ surface: 'open', ...opts });
export const Product = (opts: { plans?: Plan[]; roles?: Role[] } = {}) => Access({ surface: 'product', ...opts });
export const PublicApi = (...scopes: Scope[]) => Access({ surface: 'public', scopes });

/** The authenticated caller of this request. */
export const CurrentCaller = createParamDecorator((_data: unknown, ctx: ExecutionContext): Caller => {
  const req = ctx.switchToHttp().getRequest<{ caller?: Caller }>();
  if (!req.caller) throw new Error('CurrentCaller used on a route without authentication');
  return req.caller;
});
