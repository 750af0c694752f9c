/** Plans and what each allows (contract §3). */
export const PLANS = ['starter', 'pro', 'agency'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  requestsPerMinute: number;
  characterLimit: number;
  lora: boolean;
  publicApi: boolean;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  starter: { requestsPerMinute: 60, characterLimit: 3, lora: false, publicApi: false },
  pro: { requestsPerMinute: 180, characterLimit: 15, lora: true, publicApi: false },
  agency: { requestsPerMinute: 300, characterLimit: 100, lora: true, publicApi: true },
};

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}
