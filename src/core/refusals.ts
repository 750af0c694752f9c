import { AppError } from './errors.js';
import { PLAN_LIMITS, PLANS, type Plan, type PlanLimits } from './plans.js';

/**
 * The 402 and 403 refusals that a user can act on, worded so they say what to do (contract §2:
 * `details` carries the numbers, `how_to` the way out): an owner or admin changes the plan or buys
 * credits through billing (docs/billing.md), so that is where they point.
 */

/** Where a workspace reads its balance and plan. */
export const CREDITS_ROUTE = '/api/v1/billing/credits';
const PLAN_HOW_TO = 'An owner or admin changes the plan with POST /api/v1/billing/checkout {"plan"} (see GET /api/v1/billing/plans).';
const CREDITS_HOW_TO = `See the balance at GET ${CREDITS_ROUTE}; an owner or admin buys a credit pack with POST /api/v1/billing/checkout {"pack"}.`;

/** `plans` joined for a sentence: "pro or agency". */
const either = (plans: readonly string[]): string => plans.join(' or ');

/** The first plan above `current` whose limit is higher, or null when none is. */
function planAbove(current: Plan, limitOf: (l: PlanLimits) => number): Plan | null {
  return PLANS.find((p) => limitOf(PLAN_LIMITS[p]) > limitOf(PLAN_LIMITS[current])) ?? null;
}

/** A feature the workspace's plan lacks. `plans` (the required ones) is kept under its first name. */
export function planRequired(required: readonly Plan[], current: Plan, feature = 'This'): AppError {
  return new AppError('plan_required', `${feature} needs the ${either(required)} plan; this workspace is on ${current}. ${PLAN_HOW_TO}`, {
    plans: [...required],
    required: [...required],
    current_plan: current,
    how_to: PLAN_HOW_TO,
  });
}

/** A paid action the balance cannot cover: how much it needs, has, and lacks, and where credits come from. */
export function insufficientCredits(required: number, balance: number): AppError {
  const shortfall = Math.max(0, required - balance);
  return new AppError('insufficient_credits', `This needs ${required} credits; the workspace has ${balance} (${shortfall} short). ${CREDITS_HOW_TO}`, {
    required,
    balance,
    shortfall,
    credits_url: CREDITS_ROUTE,
    how_to: CREDITS_HOW_TO,
  });
}

/** A new character past the plan's limit, and the plan that would allow more. */
export function characterLimitReached(plan: Plan, limit: number, count: number): AppError {
  const upgrade = planAbove(plan, (l) => l.characterLimit);
  const way = upgrade ? `Delete a character, or move to the ${upgrade} plan (${PLAN_LIMITS[upgrade].characterLimit} characters). ${PLAN_HOW_TO}` : 'Delete a character to make room.';
  return new AppError('character_limit_reached', `The ${plan} plan allows ${limit} characters; this workspace has ${count}. ${way}`, {
    plan, limit, count, upgrade_plan: upgrade, how_to: way,
  });
}

/** A member or invitation past the plan's limit, and the plan that would allow more. */
export function memberLimitReached(plan: Plan, limit: number): AppError {
  const upgrade = planAbove(plan, (l) => l.memberLimit);
  const way = upgrade
    ? `Remove a member or revoke an invitation, or move to the ${upgrade} plan (${PLAN_LIMITS[upgrade].memberLimit} members). ${PLAN_HOW_TO}`
    : 'Remove a member or revoke an invitation to make room.';
  return new AppError('member_limit_reached', `The ${plan} plan allows ${limit} members, pending invitations included. ${way}`, {
    limit, plan, upgrade_plan: upgrade, how_to: way,
  });
}
