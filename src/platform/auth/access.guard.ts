import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AppError, isGranted, PLAN_LIMITS, type Caller } from '../../core/index.js';
import { RateLimiter } from '../rate-limit/rate-limiter.js';
import { ACCESS_KEY, type AccessRule } from './access.decorator.js';
import { API_KEY_PREFIX, ApiKeyAuthenticator, SessionAuthenticator, type Authenticated } from './authenticators.js';

/** The one global guard: authenticates, checks surface, plan, role and scopes, then rate-limits. */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionAuthenticator,
    private readonly apiKeys: ApiKeyAuthenticator,
    private readonly limiter: RateLimiter,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_KEY, [ctx.getHandler(), ctx.getClass()]);
    if (!rule) throw new AppError('forbidden', 'This route is not available.');
    const req = ctx.switchToHttp().getRequest<Request & { caller?: Caller }>();
    const res = ctx.switchToHttp().getResponse<Response>();

    if (rule.surface === 'open') {
      if (rule.authLimit) await this.limiter.consumeAuth(`ip:${req.ip}`, res);
      return true;
    }
    const { caller, hits } = await this.authenticate(req, rule.surface);
    req.caller = caller;
    this.limiter.enforceWorkspace(hits, caller.plan, res);

    if (rule.surface === 'product') {
      if (rule.roles && !rule.roles.includes(caller.role)) {
        throw new AppError('forbidden', 'Your role does not allow this action.');
      }
      if (rule.plans && !rule.plans.includes(caller.plan)) {
        throw new AppError('plan_required', `This needs the ${rule.plans.join(' or ')} plan.`, { plans: rule.plans });
      }
    } else {
      if (!PLAN_LIMITS[caller.plan].publicApi) {
        throw new AppError('plan_required', 'The public API needs the agency plan.', { plans: ['agency'] });
      }
      if (!isGranted(caller.scopes, rule.scopes)) {
        throw new AppError('insufficient_scope', `This API key needs the ${rule.scopes.join(', ')} scope.`, {
          required: rule.scopes,
        });
      }
    }
    return true;
  }

  private async authenticate(req: Request, surface: 'product' | 'public'): Promise<Authenticated> {
    const header = req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new AppError('unauthorized', 'Send a bearer token in the Authorization header.');
    const token = match[1];
    const isKey = token.startsWith(API_KEY_PREFIX);
    if (surface === 'product' && isKey) {
      throw new AppError('session_required', 'This route needs a session token, not an API key.');
    }
    if (surface === 'public' && !isKey) {
      throw new AppError('api_key_required', 'This route needs an API key, not a session token.');
    }
    const found = isKey ? await this.withHits(await this.apiKeys.authenticate(token)) : await this.sessions.authenticate(token);
    if (!found) throw new AppError('unauthorized', 'The token is invalid, expired or revoked.');
    return found;
  }

  private async withHits(caller: Caller | null): Promise<Authenticated | null> {
    return caller && { caller, hits: (await this.limiter.hitWorkspace(caller.workspaceId)).count };
  }
}
