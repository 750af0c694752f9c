/** Plans and what each allows (contract §3). */
export const PLANS = ['starter', 'pro', 'agency'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  requestsPerMinute: number;
  characterLimit: number;
  lora: boolean;
  publicApi: boolean;
  /** Members plus pending invitations a workspace may hold (contract §14). */
  memberLimit: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  starter: { requestsPerMinute: 60, characterLimit: 3, lora: false, publicApi: false, memberLimit: 1 },
  pro: { requestsPerMinute: 180, characterLimit: 15, lora: true, publicApi: false, memberLimit: 3 },
  agency: { requestsPerMinute: 300, characterLimit: 100, lora: true, publicApi: true, memberLimit: 25 },
};

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}
