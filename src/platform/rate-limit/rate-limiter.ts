import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '../../config/index.js';
import { AppError } from '../../core/index.js';
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

/** The counter of `key` for the fixed window that holds `nowMs`. */
export function windowKey(key: string, windowSeconds: number, nowMs: number): string {
  return `${key}:${Math.floor(nowMs / (windowSeconds * 1000))}`;
}

/** Whose budget a workspace's requests spend: the session check and the throttler count the same key. */
export function workspaceTracker(workspaceId: string): string {
  return `ws:${workspaceId}`;
}

/** Failed sign-ins allowed per email in one window; past it even the right password waits. */
export const SIGN_IN_FAILURE_LIMIT = 10;
export const SIGN_IN_FAILURE_WINDOW_SECONDS = 15 * 60;

/**
 * A budget of attempts at guessing something (a second-factor code): `limit` per subject in a fixed
 * window of `windowSeconds`. An attempt is reserved before it is checked, so concurrent guesses
 * cannot all slip under the limit, and refunded when it succeeds: only failures spend the budget.
 */
export interface AttemptBudget {
  name: string;
  limit: number;
  windowSeconds: number;
  /** What a refused caller is told. */
  message: string;
}

/** A reserved attempt; `refund` when it succeeded. */
export interface AttemptTicket {
  refund(): Promise<void>;
}

/** A request counted against its workspace's window, with the workspace's access stamp read alongside. */
export interface WorkspaceHit {
  /** Requests in the current window, this one included. */
  count: number;
  /** Changes whenever something that authorises the workspace's requests changes; see `bumpAccessStamp`. */
  stamp: string;
}

/** How long an access stamp outlives its last change; far longer than anything remembered against it. */
const ACCESS_STAMP_TTL_SECONDS = 24 * 60 * 60;

/**
 * The counters beside the throttler (which limits requests, see `RateLimitGuard`): workspace access
 * stamps, and the per-email limit on failed sign-ins.
 *
 * Every authenticated session request already makes one round trip to the counters, so it also
 * carries the workspace's access stamp back: a value moved after a session ends or a plan or role
 * changes. The session check may reuse what it read for a session while the stamp stays the same,
 * and must read again once it moves; with Redis, every instance sees the bump on its next request.
 */
@Injectable()
export class RateLimiter {
  constructor(
    private readonly config: AppConfig,
    private readonly store: CounterStore,
  ) {}

  /**
   * Counts a request against the workspace's window and reads its access stamp, in one round trip.
   * The session check calls it before it can name the caller's plan; the throttler then decides on
   * this count rather than counting again (see `CounterThrottlerStorage`).
   */
  async hitWorkspace(workspaceId: string): Promise<WorkspaceHit> {
    const windowSeconds = this.config.rateLimitWindowSeconds;
    const key = windowKey(workspaceTracker(workspaceId), windowSeconds, Date.now());
    const { count, value } = await this.store.incrementAndRead(key, windowSeconds, accessStampKey(workspaceId));
    return { count, stamp: value ?? '0' };
  }

  /**
   * The access stamps of these workspaces, counting nothing: what open sockets compare against to
   * learn that a credential must be checked again. One round trip however many workspaces.
   */
  async readAccessStamps(workspaceIds: string[]): Promise<Map<string, string>> {
    const values = await this.store.readMany(workspaceIds.map(accessStampKey));
    return new Map(workspaceIds.map((id, i) => [id, values[i] ?? '0']));
  }

  /**
   * Moves the workspace's access stamp. Call it after the change has committed (a session ended, a
   * plan or role changed): a request that reads the new stamp must also read the new rows.
   */
  async bumpAccessStamp(workspaceId: string): Promise<void> {
    await this.store.bump(accessStampKey(workspaceId), ACCESS_STAMP_TTL_SECONDS);
  }

  /**
   * Refuses a sign-in for `email` once it has had too many failures in the current window. Not a
   * throttler: it counts failures only (`recordSignInFailure`), which a request throttle cannot.
   */
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

  /**
   * Reserves one attempt of `subject` under `budget`, or refuses with 429 `rate_limited` (details:
   * `limit`, `retry_after` seconds) once `limit` attempts in the window have failed.
   */
  async reserveAttempt(budget: AttemptBudget, subject: string): Promise<AttemptTicket> {
    const now = Date.now();
    const key = windowKey(`attempt:${budget.name}:${subject}`, budget.windowSeconds, now);
    const count = await this.store.increment(key, budget.windowSeconds);
    if (count > budget.limit) {
      const { resetSeconds } = fixedWindow(count, budget.limit, budget.windowSeconds, now);
      throw new AppError('rate_limited', budget.message, { limit: budget.limit, retry_after: resetSeconds });
    }
    return { refund: () => this.store.decrement(key) };
  }

  private signInFailureKey(email: string, nowMs: number): string {
    return `signin-fail:${email.toLowerCase()}:${Math.floor(nowMs / (SIGN_IN_FAILURE_WINDOW_SECONDS * 1000))}`;
  }
}

function accessStampKey(workspaceId: string): string {
  return `stamp:${workspaceId}`;
}
