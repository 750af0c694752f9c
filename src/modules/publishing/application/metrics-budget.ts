import type { Platform } from '../../../core/index.js';
import type { CounterStore } from '../../../platform/rate-limit/counter-store.js';
import { fixedWindow, windowKey } from '../../../platform/rate-limit/index.js';
import { PublishFailure } from './ports/platform-client.js';

/** One platform's quota window as the app holds it, and the share metric reads may spend. */
export interface QuotaReserve {
  windowSeconds: number;
  /** Calls the app may make in the window (the platform's published limit for these endpoints). */
  quota: number;
  /** The most of `quota` metric reads may use; the rest stays for publishing. */
  metricsShare: number;
}

/** Documented in the README ("Platform metrics and quota reserve"). */
export const QUOTA_RESERVES: Readonly<Record<Platform, QuotaReserve>> = {
  twitter: { windowSeconds: 15 * 60, quota: 300, metricsShare: 0.5 },
  instagram: { windowSeconds: 60 * 60, quota: 200, metricsShare: 0.3 },
  youtube: { windowSeconds: 24 * 60 * 60, quota: 10_000, metricsShare: 0.2 },
  tiktok: { windowSeconds: 60, quota: 600, metricsShare: 0.25 },
  pinterest: { windowSeconds: 60, quota: 300, metricsShare: 0.3 },
};

/** How long metric reads pause after a 429 that named no Retry-After. */
export const DEFAULT_BACKOFF_MS = 60_000;

/**
 * The quota reserve of metric reads: each call of a read spends one unit of its platform's
 * metrics share in the current window, counted in the shared counter store (Redis with several
 * workers), and a 429 to a metric read stops all metric reads of that platform until its
 * Retry-After. Publishing never asks it and is never blocked by it.
 */
export class MetricsBudget {
  constructor(
    private readonly store: CounterStore,
    private readonly reserves: Readonly<Record<Platform, QuotaReserve>> = QUOTA_RESERVES,
    private readonly now: () => number = Date.now,
  ) {}

  /** Spends one call; throws rate_limited (with when to try again) when the share is spent or paused. */
  async spend(platform: Platform): Promise<void> {
    const [paused] = await this.store.readMany([pauseKey(platform)]);
    if (paused !== null) throw new PublishFailure('rate_limited', `${platform} answered 429 to a metric read; metric reads wait.`, 'before', DEFAULT_BACKOFF_MS);
    const { windowSeconds, quota, metricsShare } = this.reserves[platform];
    const allowed = Math.floor(quota * metricsShare);
    const at = this.now();
    const used = await this.store.increment(windowKey(`metrics:${platform}`, windowSeconds, at), windowSeconds);
    if (used > allowed) {
      const reset = fixedWindow(used, allowed, windowSeconds, at).resetSeconds;
      throw new PublishFailure('rate_limited', `The metric reads' share of the ${platform} quota is spent for this window.`, 'before', reset * 1000);
    }
  }

  /** A 429 to a metric read: no metric read of the platform until `retryAfterMs` passed. */
  async pause(platform: Platform, retryAfterMs: number | undefined): Promise<void> {
    await this.store.bump(pauseKey(platform), Math.max(1, Math.ceil((retryAfterMs ?? DEFAULT_BACKOFF_MS) / 1000)));
  }
}

function pauseKey(platform: Platform): string {
  return `metrics-paused:${platform}`;
}
