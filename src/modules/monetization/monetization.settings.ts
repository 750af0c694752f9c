/**
 * Monetization settings (docs/monetization.md), read by the configuration (src/config/config.ts
 * composes them). Imports only the shared setting readers: config reads this file.
 */
import { settingValue as value, wholeMillis as millis, type Env } from '../../core/setting-readers.js';
export interface MonetizationSettings {
  /** `MONETIZATION_CLICK_FLUSH_MS`: how often a worker moves counted clicks from Redis (or memory) to PostgreSQL. */
  readonly clickFlushMs: number;
  /** `MONETIZATION_LINK_CACHE_MS`: how long a process keeps a shortcode's destination before reading it again (0: no cache). */
  readonly linkCacheMs: number;
  /** `MONETIZATION_CURRENCY`: the ISO 4217 currency revenue is recorded in (workspaces have no currency of their own yet). */
  readonly currency: string;
}

export const DEFAULT_CLICK_FLUSH_MS = 5_000;
export const DEFAULT_LINK_CACHE_MS = 5_000;
export const DEFAULT_CURRENCY = 'USD';

/** Throws an Error whose message is the one line start-up prints for a bad setting. */
export function parseMonetizationSettings(env: Env): MonetizationSettings {
  const currency = (value(env, 'MONETIZATION_CURRENCY') ?? DEFAULT_CURRENCY).toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) throw new Error(`MONETIZATION_CURRENCY must be an ISO 4217 code of three letters (e.g. USD), got "${env.MONETIZATION_CURRENCY}"`);
  return {
    clickFlushMs: millis(env, 'MONETIZATION_CLICK_FLUSH_MS', DEFAULT_CLICK_FLUSH_MS, 20, 600_000),
    linkCacheMs: millis(env, 'MONETIZATION_LINK_CACHE_MS', DEFAULT_LINK_CACHE_MS, 0, 60_000),
    currency,
  };
}
