import type { Plan } from '../../../core/index.js';

/** Credits each plan grants every billing period (no rollover). Influgen's published figures. */
export const PLAN_ALLOCATIONS: Record<Plan, number> = { starter: 50, pro: 200, agency: 500 };

/** The plans sold through the payment provider; Starter is free and has no price. */
export const PAID_PLANS = ['pro', 'agency'] as const;
export type PaidPlan = (typeof PAID_PLANS)[number];

export function isPaidPlan(value: unknown): value is PaidPlan {
  return typeof value === 'string' && (PAID_PLANS as readonly string[]).includes(value);
}

/** One-time credit packs: purchased credits never expire. */
export const PACKS = {
  pack_100: { credits: 100 },
  pack_250: { credits: 250 },
  pack_500: { credits: 500 },
  pack_1000: { credits: 1000 },
} as const;
export type PackId = keyof typeof PACKS;
export const PACK_IDS = Object.keys(PACKS) as PackId[];

export function isPackId(value: unknown): value is PackId {
  return typeof value === 'string' && Object.hasOwn(PACKS, value);
}

/** A price as the payment provider holds it: amounts in the currency's smallest unit (cents). */
export interface Price {
  /** The provider's price id (Stripe `price_…`). */
  id: string;
  unitAmount: number;
  currency: string;
  /** Subscriptions only. */
  interval: 'month' | 'year' | null;
}

/** Plan order, for telling an upgrade (at once, prorated) from a downgrade (at the period's end). */
const RANK: Record<Plan, number> = { starter: 0, pro: 1, agency: 2 };

export function isUpgrade(from: Plan, to: Plan): boolean {
  return RANK[to] > RANK[from];
}
