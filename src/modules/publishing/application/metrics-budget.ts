import type { Platform } from '../../../core/index.js';
import type { CounterStore } from '../../../platform/rate-limit/counter-store.js';
import { fixedWindow, windowKey } from '../../../platform/rate-limit/index.js';
import { PublishFailure } from './ports/platform-client.js';

/** One platform's quota window, whose it is, and the share metric reads may spend. */
export interface QuotaReserve {
  /**
   * Whose quota the platform counts: each connected account's (its calls made with that account's
   * token), or the whole app's (one project or client for every account).
   */
  per: 'account' | 'app';
  windowSeconds: number;
  /** Calls one account (or the app) may make in the window: the platform's published limit for these endpoints. */
  quota: number;
  /** The most of `quota` metric reads may use; the rest stays for publishing. */
  metricsShare: number;
}

/** Documented in the README ("Platform metrics and quota reserve"). */
export const QUOTA_RESERVES: Readonly<Record<Platform, QuotaReserve>> = {
  // X counts user-context calls per user per 15-minute window.
  twitter: { per: 'account', windowSeconds: 15 * 60, quota: 300, metricsShare: 0.5 },
  // Instagram's Business Use Case limits count per professional account (200 calls an hour per user on the platform limit).
  instagram: { per: 'account', windowSeconds: 60 * 60, quota: 200, metricsShare: 0.3 },
  // YouTube's quota is the Cloud project's: 10,000 units a day for every channel together.
  youtube: { per: 'app', windowSeconds: 24 * 60 * 60, quota: 10_000, metricsShare: 0.2 },
  // TikTok limits each endpoint per client: 600 calls a minute for every account together.
  tiktok: { per: 'app', windowSeconds: 60, quota: 600, metricsShare: 0.25 },
  // Pinterest limits per user per app.
  pinterest: { per: 'account', windowSeconds: 60, quota: 300, metricsShare: 0.3 },
};

/** How long metric reads pause after a 429 that named no Retry-After. */
export const DEFAULT_BACKOFF_MS = 60_000;

/**
 * The quota reserve of metric reads: each call of a read spends one unit of the metrics share of
 * its quota (the account's or the app's, as the platform counts) in the current window, counted in
 * the shared counter store (Redis with several workers), and a 429 to a metric read stops the
 * metric reads on that same quota until its Retry-After. Publishing never asks it and is never
 * blocked by it.
 */
export class MetricsBudget {
  constructor(
    private readonly store: CounterStore,
    private readonly reserves: Readonly<Record<Platform, QuotaReserve>> = QUOTA_RESERVES,
    private readonly now: () => number = Date.now,
  ) {}

  /** Spends one call of `accountId`'s read; throws rate_limited (with when to try again) when the share is spent or paused. */
  async spend(platform: Platform, accountId: string): Promise<void> {
    const quota = this.quotaOf(platform, accountId);
    const [paused] = await this.store.readMany([`metrics-paused:${quota}`]);
    if (paused !== null) throw new PublishFailure('rate_limited', `${platform} answered 429 to a metric read; metric reads wait.`, 'before', DEFAULT_BACKOFF_MS);
    const { windowSeconds, quota: calls, metricsShare } = this.reserves[platform];
    const allowed = Math.floor(calls * metricsShare);
    const at = this.now();
    const used = await this.store.increment(windowKey(`metrics:${quota}`, windowSeconds, at), windowSeconds);
    if (used > allowed) {
      const reset = fixedWindow(used, allowed, windowSeconds, at).resetSeconds;
      throw new PublishFailure('rate_limited', `The metric reads' share of the ${platform} quota is spent for this window.`, 'before', reset * 1000);
    }
  }

  /** A 429 to a metric read of `accountId`: no metric read on the same quota until `retryAfterMs` passed. */
  async pause(platform: Platform, accountId: string, retryAfterMs: number | undefined): Promise<void> {
    await this.store.bump(`metrics-paused:${this.quotaOf(platform, accountId)}`, Math.max(1, Math.ceil((retryAfterMs ?? DEFAULT_BACKOFF_MS) / 1000)));
  }

  /** The name of the quota a read spends: the platform's, and the account's where the platform counts per account. */
  private quotaOf(platform: Platform, accountId: string): string {
    return this.reserves[platform].per === 'account' ? `${platform}:${accountId}` : platform;
  }
}
