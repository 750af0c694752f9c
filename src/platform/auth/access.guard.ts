import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { AppError, isGranted, PLAN_LIMITS, PLANS, planRequired, roleAtLeast, type Caller, type WorkspaceRole } from '../../core/index.js';
import type { RateLimitedRequest } from '../rate-limit/index.js';
import { RateLimitGuard } from '../rate-limit/rate-limit.guard.js';
import { ACCESS_KEY, MIN_ROLE_KEY, type AccessRule } from './access.decorator.js';
import { API_KEY_STRATEGY, bearerTokenOf, credentialRequest, isApiKeyToken, SESSION_STRATEGY, type Authenticated, type CredentialRequest } from './authenticators.js';

type AccessRequest = Request & RateLimitedRequest;

interface RouteDeclaration {
  rule: AccessRule | undefined;
  minRole: WorkspaceRole | undefined;
}

/**
 * The one global guard: checks the route's surface against the credential, authenticates through
 * passport (a session token by passport-jwt, an API key by its lookup), rate-limits through
 * @nestjs/throttler, then checks plan, role and scopes.
 *
 * What is counted is what was counted before passport: a refused surface or a token that does not
 * verify costs nothing; a verified token of an ended session was already counted by the session
 * check; every authenticated request is counted, so a 429 comes before a 403. A route declared
 * `verifiedEmail` refuses a session whose user has not verified their address, after the plan and role checks.
 */
@Injectable()
export class AccessGuard extends AuthGuard([SESSION_STRATEGY, API_KEY_STRATEGY]) {
  private readonly declarations = new WeakMap<object, RouteDeclaration>();

  constructor(
    private readonly reflector: Reflector,
    private readonly rateLimit: RateLimitGuard,
  ) {
    // No session, ever; handleRequest puts the caller on the request.
    super({ session: false });
  }

  override async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const { rule, minRole } = this.declarationOf(ctx);
    if (!rule) throw new AppError('forbidden', 'This route is not available.');

    if (rule.surface === 'open') {
      if (rule.openLimit) ctx.switchToHttp().getRequest<{ openLimit?: boolean }>().openLimit = true;
      return rule.authLimit || rule.openLimit ? this.rateLimit.canActivate(ctx) : true;
    }
    assertSurfaceCredential(ctx.switchToHttp().getRequest<AccessRequest>(), rule.surface);
    await super.canActivate(ctx);
    await this.rateLimit.canActivate(ctx);
    const caller = ctx.switchToHttp().getRequest<AccessRequest>().caller!;
    if (caller.mfaRequirementUnmet && !(rule.surface === 'product' && rule.mfaExempt)) {
      throw new AppError('mfa_required', 'This workspace requires two-factor sign-in: enable it under /auth/mfa/totp/setup, then try again.');
    }
    if (minRole && !roleAtLeast(caller.workspaceRole, minRole)) {
      throw new AppError('insufficient_role', `This needs the ${minRole} role in the workspace; yours is ${caller.workspaceRole}.`, { required: minRole });
    }

    if (rule.surface === 'product') {
      if (rule.roles && !rule.roles.includes(caller.role)) {
        throw new AppError('forbidden', 'Your role does not allow this action.');
      }
      if (rule.plans && !rule.plans.includes(caller.plan)) {
        throw planRequired(rule.plans, caller.plan);
      }
      if (rule.verifiedEmail && caller.emailVerified !== true) {
        throw new AppError('email_not_verified', 'Verify your email address first: open the link we emailed you, or ask for a new one (POST /auth/verify-email/request).');
      }
    } else {
      if (!PLAN_LIMITS[caller.plan].publicApi) {
        throw planRequired(PLANS.filter((p) => PLAN_LIMITS[p].publicApi), caller.plan, 'The public API');
      }
      if (!isGranted(caller.scopes, rule.scopes)) {
        throw new AppError('insufficient_scope', `This API key needs the ${rule.scopes.join(', ')} scope.`, {
          required: rule.scopes,
        });
      }
    }
    return true;
  }

  /** The route's declarations, read once per handler: they are fixed when the class is defined. */
  private declarationOf(ctx: ExecutionContext): RouteDeclaration {
    const handler = ctx.getHandler();
    let found = this.declarations.get(handler);
    if (found === undefined) {
      const targets = [handler, ctx.getClass()];
      found = {
        rule: this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_KEY, targets),
        minRole: this.reflector.getAllAndOverride<WorkspaceRole | undefined>(MIN_ROLE_KEY, targets),
      };
      this.declarations.set(handler, found);
    }
    return found;
  }

  /**
   * Passport is handed the Authorization header only, not Express's request (see `CredentialRequest`),
   * and whether the request was already counted (an MCP tool's loopback route call).
   */
  override getRequest(ctx: ExecutionContext): CredentialRequest {
    const req = ctx.switchToHttp().getRequest<Request>();
    return credentialRequest(req.headers.authorization, this.rateLimit.isCountedCall(req));
  }

  /**
   * Passport's answer: the caller, set on the request, or a refusal in the contract's words. A count
   * the strategy made travels on to the rate-limit step, which decides on it instead of counting again.
   */
  override handleRequest<TUser = Caller>(err: Error | null, found: Authenticated | false | null, _info: unknown, ctx: ExecutionContext): TUser {
    if (err) throw err;
    if (!found) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
    const req = ctx.switchToHttp().getRequest<AccessRequest>();
    req.caller = found.caller;
    if (found.hits !== undefined) req.countedHits = found.hits;
    return found.caller as TUser;
  }
}

/** Product routes take session tokens, public routes API keys; told apart by the key prefix. */
function assertSurfaceCredential(req: Request, surface: 'product' | 'public'): void {
  const token = bearerTokenOf(req);
  if (token === null) throw new AppError('unauthorized', 'Send a bearer token in the Authorization header.');
  const isKey = isApiKeyToken(token);
  if (surface === 'product' && isKey) {
    throw new AppError('session_required', 'This route needs a session token, not an API key.');
  }
  if (surface === 'public' && !isKey) {
    throw new AppError('api_key_required', 'This route needs an API key, not a session token.');
  }
}
