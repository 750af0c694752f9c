import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '../../config/index.js';
import { AppError, PLAN_LIMITS, type Plan } from '../../core/index.js';
import type { CounterStore } from './counter-store.js';

/** A fixed-window decision: how many hits remain and when the window resets. */
export interface WindowState {
  limit: number;
  remaining: number;
  resetSeconds: number;
  windowSeconds: number;
}

export function fixedWindow(count: number, limit: number, windowSeconds: number, nowMs: number): WindowState {
  const windowMs = windowSeconds * 1000;
  const resetSeconds = Math.max(1, Math.ceil((windowMs - (nowMs % windowMs)) / 1000));
  return { limit, remaining: Math.max(0, limit - count), resetSeconds, windowSeconds };
}

/** Failed sign-ins allowed per email in one window; past it even the right password waits. */
export const SIGN_IN_FAILURE_LIMIT = 10;
export const SIGN_IN_FAILURE_WINDOW_SECONDS = 15 * 60;

/** Per-workspace limits by plan, and a stricter per-address/per-email limit for sign-in. */
@Injectable()
export class RateLimiter {
  constructor(
    private readonly config: AppConfig,
    private readonly store: CounterStore,
  ) {}

  async consumeWorkspace(workspaceId: string, plan: Plan, res: Response): Promise<void> {
    const perMinute = PLAN_LIMITS[plan].requestsPerMinute * this.config.rateLimitMultiplier;
    const limit = Math.round((perMinute * this.config.rateLimitWindowSeconds) / 60);
    await this.consume(`ws:${workspaceId}`, limit, this.config.rateLimitWindowSeconds, 'plan', res);
  }

  /** Sign-in limits use a one-minute window regardless of the plan window. */
  async consumeAuth(key: string, res?: Response): Promise<void> {
    await this.consume(`auth:${key}`, this.config.authRateLimitPerMinute, 60, 'auth', res);
  }

  /** Refuses a sign-in for `email` once it has had too many failures in the current window. */
  async assertSignInAllowed(email: string, res?: Response): Promise<void> {
    const now = Date.now();
    const failures = await this.store.peek(this.signInFailureKey(email, now));
    if (failures >= SIGN_IN_FAILURE_LIMIT) {
      const { resetSeconds } = fixedWindow(failures, SIGN_IN_FAILURE_LIMIT, SIGN_IN_FAILURE_WINDOW_SECONDS, now);
      res?.setHeader('Retry-After', String(resetSeconds));
      throw new AppError('rate_limited', 'Too many failed sign-ins for this email; try again later.', {
        limit: SIGN_IN_FAILURE_LIMIT,
        retry_after: resetSeconds,
      });
    }
  }

  async recordSignInFailure(email: string): Promise<void> {
    await this.store.increment(this.signInFailureKey(email, Date.now()), SIGN_IN_FAILURE_WINDOW_SECONDS);
  }

  private signInFailureKey(email: string, nowMs: number): string {
    return `signin-fail:${email.toLowerCase()}:${Math.floor(nowMs / (SIGN_IN_FAILURE_WINDOW_SECONDS * 1000))}`;
  }

  private async consume(key: string, limit: number, windowSeconds: number, policy: string, res?: Response): Promise<void> {
    const now = Date.now();
    const windowIndex = Math.floor(now / (windowSeconds * 1000));
    const count = await this.store.increment(`${key}:${windowIndex}`, windowSeconds);
    const state = fixedWindow(count, limit, windowSeconds, now);
    if (res) setHeaders(res, state, policy);
    if (count > limit) {
      res?.setHeader('Retry-After', String(state.resetSeconds));
      throw new AppError('rate_limited', `Rate limit of ${limit} requests per ${windowSeconds} s reached.`, {
        limit,
        retry_after: state.resetSeconds,
      });
    }
  }
}

function setHeaders(res: Response, s: WindowState, policy: string): void {
  res.setHeader('RateLimit-Policy', `"${policy}";q=${s.limit};w=${s.windowSeconds}`);
  res.setHeader('RateLimit', `"${policy}";r=${s.remaining};t=${s.resetSeconds}`);
  res.setHeader('X-RateLimit-Limit', String(s.limit));
  res.setHeader('X-RateLimit-Remaining', String(s.remaining));
  res.setHeader('X-RateLimit-Reset', String(s.resetSeconds));
}
