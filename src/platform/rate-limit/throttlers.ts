import type { ExecutionContext } from '@nestjs/common';
import type { ThrottlerModuleOptions } from '@nestjs/throttler';
import { AppConfig } from '../../config/index.js';
import { PLAN_LIMITS, type Caller, type Plan } from '../../core/index.js';
import type { CounterStore } from './counter-store.js';
import { CounterThrottlerStorage, countedKey } from './counter-throttler-storage.js';
import { workspaceTracker } from './rate-limiter.js';

/** The request as the rate-limit step sees it; the access guard has authenticated it, or it is an open route. */
export interface RateLimitedRequest {
  ip?: string;
  caller?: Caller;
  /** Set when authentication already counted this request against its workspace (see `countedKey`). */
  countedHits?: number;
  /** Set by the access guard on open routes declared `@Open({ openLimit: true })`. */
  openLimit?: boolean;
}

/**
 * The limits of contract §3, named as their `RateLimit-Policy` names them. `plan`: per workspace
 * across its users and keys, at its plan's rate, for authenticated requests. `auth`: per client
 * address, for sign-in routes (`@Open({ authLimit: true })`), in one-minute windows. `open`: per
 * client address, for open routes that serve files or take deliveries (`@Open({ openLimit: true })`:
 * signed media, logos, provider webhooks), a budget of its own so a page full of images does not
 * spend the sign-in budget.
 */
export type RateLimitPolicy = 'plan' | 'auth' | 'open';

/** Authenticated requests spend their workspace's budget; open ones their address's. */
export function policyOf(req: RateLimitedRequest): RateLimitPolicy {
  return req.caller ? 'plan' : req.openLimit ? 'open' : 'auth';
}

/** The plan's requests per minute, times RATE_LIMIT_MULTIPLIER, scaled to the window. */
export function planLimit(config: AppConfig, plan: Plan): number {
  const perMinute = PLAN_LIMITS[plan].requestsPerMinute * config.rateLimitMultiplier;
  return Math.round((perMinute * config.rateLimitWindowSeconds) / 60);
}

/** @nestjs/throttler's configuration: the two policies, over the shared counters. */
export function throttlerOptions(config: AppConfig, store: CounterStore): ThrottlerModuleOptions {
  return {
    storage: new CounterThrottlerStorage(store),
    // One budget per workspace or address across every route, not the throttler's default of one per handler.
    generateKey: (ctx, tracker) => keyOf(requestOf(ctx), tracker),
    throttlers: [
      {
        name: 'plan' satisfies RateLimitPolicy,
        ttl: config.rateLimitWindowSeconds * 1000,
        limit: (ctx) => planLimit(config, callerOf(requestOf(ctx)).plan),
        getTracker: (req: RateLimitedRequest) => workspaceTracker(callerOf(req).workspaceId),
        skipIf: (ctx) => policyOf(requestOf(ctx)) !== 'plan',
      },
      {
        name: 'auth' satisfies RateLimitPolicy,
        ttl: 60_000,
        limit: config.authRateLimitPerMinute,
        getTracker: (req: RateLimitedRequest) => `auth:ip:${req.ip}`,
        skipIf: (ctx) => policyOf(requestOf(ctx)) !== 'auth',
      },
      {
        name: 'open' satisfies RateLimitPolicy,
        ttl: 60_000,
        limit: config.openRateLimitPerMinute,
        getTracker: (req: RateLimitedRequest) => `open:ip:${req.ip}`,
        skipIf: (ctx) => policyOf(requestOf(ctx)) !== 'open',
      },
    ],
  };
}

function requestOf(ctx: ExecutionContext): RateLimitedRequest {
  return ctx.switchToHttp().getRequest<RateLimitedRequest>();
}

function callerOf(req: RateLimitedRequest): Caller {
  if (!req.caller) throw new Error('the plan rate limit ran before authentication');
  return req.caller;
}

function keyOf(req: RateLimitedRequest, tracker: string): string {
  return req.countedHits === undefined ? tracker : countedKey(tracker, req.countedHits);
}
