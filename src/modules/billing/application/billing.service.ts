import { Injectable } from '@nestjs/common';
import { AppError, pageRequest, PLAN_LIMITS, PLANS, type Page, type Plan, type PlanLimits } from '../../../core/index.js';
import { PACK_IDS, PACKS, PLAN_ALLOCATIONS, type PackId, type Price } from '../domain/catalogue.js';
import type { LedgerEntry } from '../domain/credits.js';
import { AllocationsRepository } from '../infrastructure/allocations.repository.js';
import { CreditLedgerRepository } from '../infrastructure/credit-ledger.repository.js';
import { PlansRepository } from '../infrastructure/plans.repository.js';
import { holdsPlan, SubscriptionsRepository } from '../infrastructure/subscriptions.repository.js';
import { BillingFacade } from './billing.facade.js';
import { PaymentGateway, type RemoteInvoice, type SubscriptionStatus } from './ports/payment-gateway.js';

export interface CreditSummary {
  balance: number;
  plan: Plan;
  characterLimit: number;
}

/** A plan as the catalogue shows it; Starter is free (no price). */
export interface CataloguePlan {
  plan: Plan;
  price: Price | null;
  monthlyCredits: number;
  limits: PlanLimits;
}

export interface CataloguePack {
  pack: PackId;
  credits: number;
  price: Price;
}

/** `GET /billing/subscription`: the plan, the subscription if any, both credit buckets. */
export interface SubscriptionState {
  plan: Plan;
  status: SubscriptionStatus;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  pendingPlan: Plan | null;
  allocation: { granted: number; used: number; remaining: number; resetsAt: Date | null };
  purchasedCredits: number;
  balance: number;
}

/** What a workspace may read about its billing: credits, ledger, catalogue, subscription, invoices. */
@Injectable()
export class BillingService {
  constructor(
    private readonly facade: BillingFacade,
    private readonly ledger: CreditLedgerRepository,
    private readonly allocations: AllocationsRepository,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly plans: PlansRepository,
    private readonly gateway: PaymentGateway,
  ) {}

  async summary(workspaceId: string, plan: Plan): Promise<CreditSummary> {
    return { balance: await this.facade.balance(workspaceId), plan, characterLimit: PLAN_LIMITS[plan].characterLimit };
  }

  history(workspaceId: string, page?: number, pageSize?: number): Promise<Page<LedgerEntry>> {
    return this.ledger.list(workspaceId, pageRequest(page, pageSize));
  }

  /** The plan as stored now (a change this request made is not in the caller's yet). */
  async plan(workspaceId: string): Promise<Plan> {
    const plan = await this.plans.currentPlan(workspaceId);
    if (!plan) throw AppError.notFound('Workspace');
    return plan;
  }

  async catalogue(): Promise<{ plans: CataloguePlan[]; packs: CataloguePack[] }> {
    const prices = await this.gateway.prices();
    return {
      plans: PLANS.map((plan) => ({ plan, price: plan === 'starter' ? null : prices.plans[plan], monthlyCredits: PLAN_ALLOCATIONS[plan], limits: PLAN_LIMITS[plan] })),
      packs: PACK_IDS.map((pack) => ({ pack, credits: PACKS[pack].credits, price: prices.packs[pack] })),
    };
  }

  async subscription(workspaceId: string, plan: Plan): Promise<SubscriptionState> {
    const [allocation, sub] = await Promise.all([this.allocations.get(workspaceId), this.subscriptions.get(workspaceId)]);
    if (!allocation) throw AppError.notFound('Workspace');
    const live = sub && holdsPlan(sub.status) ? sub : null;
    return {
      plan,
      status: live?.status ?? (sub?.status === 'incomplete' ? 'incomplete' : 'active'),
      currentPeriodEnd: live?.currentPeriodEnd ?? allocation.resetsAt,
      cancelAtPeriodEnd: live?.cancelAtPeriodEnd ?? false,
      pendingPlan: live ? (live.cancelAtPeriodEnd ? 'starter' : live.pendingPlan) : null,
      allocation: { granted: allocation.granted, used: allocation.granted - allocation.remaining, remaining: allocation.remaining, resetsAt: allocation.resetsAt },
      purchasedCredits: allocation.balance - allocation.remaining,
      balance: allocation.balance,
    };
  }

  /** Newest first, by cursor (the provider pages by the last id seen). None before the first checkout. */
  async invoices(workspaceId: string, limit: number, startingAfter?: string): Promise<{ items: RemoteInvoice[]; hasMore: boolean }> {
    const customerId = await this.plans.customerId(workspaceId);
    if (!customerId) return { items: [], hasMore: false };
    return this.gateway.listInvoices(customerId, { limit, startingAfter });
  }
}
