import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { PLANS, type OutboxEventPayloads } from '../../../../core/index.js';
import type { CataloguePack, CataloguePlan, SubscriptionState } from '../../application/billing.service.js';
import type { RemoteInvoice } from '../../application/ports/payment-gateway.js';
import { PACK_IDS, PAID_PLANS, type PackId, type PaidPlan, type Price } from '../../domain/catalogue.js';
import type { LocalSubscription } from '../../infrastructure/subscriptions.repository.js';

export class CheckoutDto {
  @ApiPropertyOptional({ enum: PAID_PLANS, description: 'Subscribe, or change the plan of the subscription there is. Give plan or pack, not both.' })
  @IsOptional()
  @IsIn(PAID_PLANS, { message: 'plan must be pro or agency; to go back to Starter, cancel the subscription (POST /billing/subscription/cancel)' })
  plan?: PaidPlan;

  @ApiPropertyOptional({ enum: PACK_IDS, description: 'Buy a credit pack (one payment; its credits never expire).' })
  @IsOptional()
  @IsIn(PACK_IDS, { message: `pack must be one of ${PACK_IDS.join(', ')}` })
  pack?: PackId;
}

export class InvoicesQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `next_cursor` of the previous page.' })
  @IsOptional()
  @Matches(/^in_[A-Za-z0-9_]{1,120}$/, { message: 'starting_after must be an invoice id from next_cursor' })
  starting_after?: string;
}

class PriceView {
  @ApiProperty({ description: 'In the currency’s smallest unit (cents).', example: 2900 }) amount!: number;
  @ApiProperty({ example: 'usd' }) currency!: string;
  @ApiProperty({ enum: ['month', 'year'], nullable: true, type: String }) interval!: string | null;
}

class PlanLimitsView {
  @ApiProperty({ type: 'integer' }) requests_per_minute!: number;
  @ApiProperty({ type: 'integer' }) characters!: number;
  @ApiProperty({ type: 'integer' }) members!: number;
  @ApiProperty() lora!: boolean;
  @ApiProperty() public_api!: boolean;
}

class CataloguePlanView {
  @ApiProperty({ enum: PLANS }) plan!: string;
  @ApiProperty({ type: PriceView, nullable: true, description: 'Null for Starter (free).' }) price!: PriceView | null;
  @ApiProperty({ type: 'integer', description: 'Credits granted every billing period; they do not roll over.' }) monthly_credits!: number;
  @ApiProperty({ type: PlanLimitsView }) limits!: PlanLimitsView;
}

class CataloguePackView {
  @ApiProperty({ enum: PACK_IDS }) pack!: string;
  @ApiProperty({ type: 'integer' }) credits!: number;
  @ApiProperty({ type: PriceView }) price!: PriceView;
}

export class CatalogueView {
  @ApiProperty({ type: [CataloguePlanView] }) plans!: CataloguePlanView[];
  @ApiProperty({ type: [CataloguePackView] }) packs!: CataloguePackView[];
}

class AllocationView {
  @ApiProperty({ type: 'integer', description: "This period's plan credits." }) granted!: number;
  @ApiProperty({ type: 'integer' }) used!: number;
  @ApiProperty({ type: 'integer' }) remaining!: number;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'When the allocation renews (what is left expires).' }) resets_at!: string | null;
}

export class SubscriptionView {
  @ApiProperty({ enum: PLANS }) plan!: string;
  @ApiProperty({ enum: ['active', 'trialing', 'past_due', 'canceled', 'incomplete'] }) status!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) current_period_end!: string | null;
  @ApiProperty() cancel_at_period_end!: boolean;
  @ApiProperty({ enum: PLANS, nullable: true, type: String, description: 'The plan from the period’s end (a downgrade, or starter after a cancel).' }) pending_plan!: string | null;
  @ApiProperty({ type: AllocationView }) allocation!: AllocationView;
  @ApiProperty({ description: 'Bought (or given) credits: they never expire and are spent after the allocation.' }) purchased_credits!: number;
  @ApiProperty({ type: 'integer', description: 'allocation.remaining + purchased_credits.' }) balance!: number;
}

export class CheckoutView {
  @ApiProperty({ enum: ['checkout', 'upgraded', 'downgrade_scheduled', 'downgrade_cancelled', 'resumed'] }) kind!: string;
  @ApiProperty({ nullable: true, type: String, description: 'The hosted page to pay on (kind checkout).' }) url!: string | null;
  @ApiProperty({ nullable: true, type: String }) session_id!: string | null;
  @ApiProperty({ type: SubscriptionView, nullable: true, description: 'The state after a change (kinds other than checkout).' }) subscription!: SubscriptionView | null;
}

export class UrlView {
  @ApiProperty() url!: string;
}

class InvoiceView {
  @ApiProperty() id!: string;
  @ApiProperty({ nullable: true, type: String }) number!: string | null;
  @ApiProperty({ description: 'In the currency’s smallest unit.' }) amount!: number;
  @ApiProperty() currency!: string;
  @ApiProperty({ enum: ['draft', 'open', 'paid', 'uncollectible', 'void'] }) status!: string;
  @ApiProperty({ nullable: true, type: String }) hosted_url!: string | null;
  @ApiProperty({ enum: [...PAID_PLANS], nullable: true, type: String }) plan!: string | null;
  @ApiProperty({ format: 'date-time' }) period_start!: string;
  @ApiProperty({ format: 'date-time' }) period_end!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class InvoicePageView {
  @ApiProperty({ type: [InvoiceView] }) invoices!: InvoiceView[];
  @ApiProperty() has_more!: boolean;
  @ApiProperty({ nullable: true, type: String, description: 'Pass as starting_after for the next page.' }) next_cursor!: string | null;
}

/** The body of the `credits.low` socket event. */
export class CreditsLowBody {
  @ApiProperty({ type: 'integer', enum: [25, 10, 0], description: 'Percent of this period’s allocation left, at most.' }) threshold!: number;
  @ApiProperty({ type: 'integer' }) remaining!: number;
  @ApiProperty({ type: 'integer' }) granted!: number;
  @ApiProperty({ type: 'integer' }) balance!: number;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) resets_at!: string | null;
}

/** The `credits.low` body (socket event and webhook): the alert as it was raised, from its event. */
export function creditsLowBody(p: OutboxEventPayloads['credits.low']) {
  return { threshold: p.threshold, remaining: p.remaining, granted: p.granted, balance: p.balance, resets_at: p.resetsAt };
}

export class ReconciliationView {
  @ApiProperty({ type: 'integer' }) checked!: number;
  @ApiProperty({ type: 'integer' }) drifted!: number;
  @ApiProperty({ type: 'integer' }) failed!: number;
}

function priceBody(p: Price) {
  return { amount: p.unitAmount, currency: p.currency, interval: p.interval };
}

export function catalogueBody(c: { plans: CataloguePlan[]; packs: CataloguePack[] }) {
  return {
    plans: c.plans.map((p) => ({
      plan: p.plan,
      price: p.price ? priceBody(p.price) : null,
      monthly_credits: p.monthlyCredits,
      limits: { requests_per_minute: p.limits.requestsPerMinute, characters: p.limits.characterLimit, members: p.limits.memberLimit, lora: p.limits.lora, public_api: p.limits.publicApi },
    })),
    packs: c.packs.map((p) => ({ pack: p.pack, credits: p.credits, price: priceBody(p.price) })),
  };
}

export function subscriptionBody(s: SubscriptionState) {
  return {
    plan: s.plan,
    status: s.status,
    current_period_end: s.currentPeriodEnd?.toISOString() ?? null,
    cancel_at_period_end: s.cancelAtPeriodEnd,
    pending_plan: s.pendingPlan,
    allocation: { granted: s.allocation.granted, used: s.allocation.used, remaining: s.allocation.remaining, resets_at: s.allocation.resetsAt?.toISOString() ?? null },
    purchased_credits: s.purchasedCredits,
    balance: s.balance,
  };
}

export function invoiceBody(i: RemoteInvoice) {
  return {
    id: i.id,
    number: i.number,
    amount: i.amount,
    currency: i.currency,
    status: i.status,
    hosted_url: i.hostedUrl,
    plan: i.plan,
    period_start: i.periodStart.toISOString(),
    period_end: i.periodEnd.toISOString(),
    created_at: i.createdAt.toISOString(),
  };
}

export type { LocalSubscription };
