import { describe, expect, it } from '@jest/globals';
import { characterLimitReached, insufficientCredits, memberLimitReached, planRequired } from './refusals.js';

describe('refusals say what to do', () => {
  it('plan_required names the plans it needs, the plan the workspace is on, and who changes plans', () => {
    const err = planRequired(['pro', 'agency'], 'starter');
    expect(err.code).toBe('plan_required');
    expect(err.message).toMatch(/^This needs the pro or agency plan; this workspace is on starter\. An owner or admin changes the plan with POST \/api\/v1\/billing\/checkout/);
    expect(err.details).toEqual({ plans: ['pro', 'agency'], required: ['pro', 'agency'], current_plan: 'starter', how_to: expect.stringContaining('POST /api/v1/billing/checkout') });
  });

  it('insufficient_credits gives what is needed, held and missing, and where credits come from', () => {
    const err = insufficientCredits(290, 120);
    expect(err.message).toMatch(/^This needs 290 credits; the workspace has 120 \(170 short\)\. See the balance at GET \/api\/v1\/billing\/credits/);
    expect(err.details).toMatchObject({ required: 290, balance: 120, shortfall: 170, credits_url: '/api/v1/billing/credits' });
  });

  it('limits name the next plan that allows more, and none past the top plan', () => {
    expect(characterLimitReached('starter', 3, 3).details).toMatchObject({ plan: 'starter', limit: 3, count: 3, upgrade_plan: 'pro' });
    expect(characterLimitReached('starter', 3, 3).message).toContain('move to the pro plan (15 characters)');
    expect(characterLimitReached('agency', 100, 100).details).toMatchObject({ upgrade_plan: null });
    expect(memberLimitReached('pro', 3).details).toMatchObject({ plan: 'pro', limit: 3, upgrade_plan: 'agency' });
    expect(memberLimitReached('agency', 25).message).toContain('Remove a member or revoke an invitation to make room.');
  });
});
