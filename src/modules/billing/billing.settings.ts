/** What has a price: the paid plans and the packs (the catalogue's ids, repeated here: settings import nothing but core). */
export type PricedItem = 'pro' | 'agency' | 'pack_100' | 'pack_250' | 'pack_500' | 'pack_1000';

/** Stripe's account settings; without a secret key billing runs on the offline sandbox. */
export interface StripeSettings {
  readonly secretKey: string;
  /** The endpoint's signing secret (`whsec_…`), from the Stripe dashboard or `stripe listen`. */
  readonly webhookSecret: string;
  /** Where the SDK sends requests (host, port, protocol); Stripe's own API when unset. */
  readonly apiBase?: URL;
  /** The Stripe price ids of the paid plans and the packs (`price_…`). */
  readonly prices: Readonly<Record<PricedItem, string>>;
}

/**
 * Billing settings, read by the configuration (src/config/config.ts composes them).
 * `allocationPassMs`: how often a worker grants the monthly allocations that fell due (Starter
 * workspaces without a subscription). `reconcileEveryMs`: how often every subscribed workspace is
 * compared with the provider.
 */
export interface BillingSettings {
  readonly stripe?: StripeSettings;
  readonly allocationPassMs: number;
  readonly reconcileEveryMs: number;
}

/** The environment names of the price ids, in catalogue order. */
export const PRICE_ENV: Readonly<Record<PricedItem, string>> = {
  pro: 'STRIPE_PRICE_PRO',
  agency: 'STRIPE_PRICE_AGENCY',
  pack_100: 'STRIPE_PRICE_PACK_100',
  pack_250: 'STRIPE_PRICE_PACK_250',
  pack_500: 'STRIPE_PRICE_PACK_500',
  pack_1000: 'STRIPE_PRICE_PACK_1000',
};

function value(env: Record<string, string | undefined>, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function milliseconds(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number of milliseconds from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** Throws an Error whose message is the one line start-up prints for a bad setting. */
export function parseBillingSettings(env: Record<string, string | undefined>): BillingSettings {
  const allocationPassMs = milliseconds(env, 'ALLOCATION_PASS_MS', 60_000, 100, 3_600_000);
  const reconcileEveryMs = milliseconds(env, 'BILLING_RECONCILE_MS', 24 * 3_600_000, 1_000, 7 * 24 * 3_600_000);
  const secretKey = value(env, 'STRIPE_SECRET_KEY');
  if (secretKey === undefined) return { allocationPassMs, reconcileEveryMs };
  if (!/^(sk|rk)_(test|live)_\w+$/.test(secretKey)) throw new Error('STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_…)');
  const webhookSecret = value(env, 'STRIPE_WEBHOOK_SECRET');
  if (!webhookSecret?.startsWith('whsec_')) throw new Error('STRIPE_WEBHOOK_SECRET (whsec_…) is required with STRIPE_SECRET_KEY');
  const prices = {} as Record<PricedItem, string>;
  for (const [item, name] of Object.entries(PRICE_ENV) as Array<[PricedItem, string]>) {
    const id = value(env, name);
    if (!id?.startsWith('price_')) throw new Error(`${name} (a Stripe price id, price_…) is required with STRIPE_SECRET_KEY`);
    prices[item] = id;
  }
  let apiBase: URL | undefined;
  const base = value(env, 'STRIPE_API_BASE');
  if (base !== undefined) {
    try {
      apiBase = new URL(base);
    } catch {
      throw new Error('STRIPE_API_BASE must be a URL such as https://api.stripe.com');
    }
    if (apiBase.protocol !== 'https:' && apiBase.protocol !== 'http:') throw new Error('STRIPE_API_BASE must use http: or https:');
  }
  return { stripe: { secretKey, webhookSecret, apiBase, prices }, allocationPassMs, reconcileEveryMs };
}
