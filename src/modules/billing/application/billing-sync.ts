import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { OutboxEvent, Plan } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Outbox, OutboxSubscribers, PermanentDeliveryFailure } from '../../../platform/outbox/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { AuditLog } from '../../audit/index.js';
import { currentPeriodEnd } from '../domain/allocation.js';
import { PACKS, PLAN_ALLOCATIONS } from '../domain/catalogue.js';
import { AllocationsRepository } from '../infrastructure/allocations.repository.js';
import { PlansRepository } from '../infrastructure/plans.repository.js';
import { holdsPlan, SubscriptionsRepository } from '../infrastructure/subscriptions.repository.js';
import { BillingFacade } from './billing.facade.js';
import { PaymentGateway, type RemoteCheckout, type RemoteInvoice, type RemoteSubscription } from './ports/payment-gateway.js';

/** How many of a customer's newest invoices a sync looks at for grants it has not made yet. */
const RECENT_INVOICES = 10;

/** What one sync of a workspace changed (reconciliation counts the drift it mended). */
export interface SyncOutcome {
  planFrom: Plan;
  planTo: Plan;
  grants: number;
}

/**
 * Applies the provider's state to the service. Every provider event, whatever its type or order,
 * comes down to "read this workspace's subscription and recent invoices again and apply them", so
 * late, repeated or reordered events converge on what the provider holds now. A grant happens once
 * per cause: an invoice id (a period's allocation, an upgrade's top-up) or a pack's checkout id.
 * Runs after commit from the outbox (`billing.provider_event`), and from the reconciliation pass.
 */
@Injectable()
export class BillingSync implements OnModuleInit {
  private readonly logger = new Logger('Billing');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly gateway: PaymentGateway,
    private readonly subscribers: OutboxSubscribers,
    private readonly outbox: Outbox,
    private readonly plans: PlansRepository,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly allocations: AllocationsRepository,
    private readonly billing: BillingFacade,
    private readonly audit: AuditLog,
    private readonly limiter: RateLimiter,
  ) {}

  onModuleInit(): void {
    this.subscribers.register({ name: 'billing-sync', types: ['billing.provider_event'], handle: (event) => this.handle(event) });
  }

  async handle(event: OutboxEvent): Promise<void> {
    if (event.type !== 'billing.provider_event') return;
    const { objectType, objectId, eventType } = event.payload;
    if (objectType === 'checkout.session') {
      const checkout = await this.gateway.getCheckout(objectId);
      if (!checkout) throw new PermanentDeliveryFailure(`checkout session ${objectId} is unknown to the provider`);
      await this.applyCheckout(checkout);
    } else if (objectType === 'subscription') {
      const sub = await this.gateway.getSubscription(objectId);
      if (!sub) throw new PermanentDeliveryFailure(`subscription ${objectId} is unknown to the provider`);
      const workspaceId = await this.workspaceOf(sub.customerId);
      // The customer's subscription as it is now, not the event's (an older one's event changes nothing newer).
      if (workspaceId) await this.syncWorkspace(workspaceId, sub.customerId);
    } else if (objectType === 'invoice') {
      const invoice = await this.gateway.getInvoice(objectId);
      if (!invoice) throw new PermanentDeliveryFailure(`invoice ${objectId} is unknown to the provider`);
      const workspaceId = await this.workspaceOf(invoice.customerId);
      if (!workspaceId) return;
      await this.syncWorkspace(workspaceId, invoice.customerId);
      if (eventType === 'invoice.payment_failed') await this.paymentFailed(workspaceId, invoice, event.payload.eventId);
    }
  }

  /**
   * Reads the customer's newest live subscription and recent invoices from the provider and applies
   * them: the plan, the local copy, the grants of paid invoices of the current period. Syncs of one
   * workspace may overlap (several events at once, several processes): the local copy remembers
   * when its read began, and an older read never overwrites a newer one.
   */
  async syncWorkspace(workspaceId: string, customerId: string): Promise<SyncOutcome> {
    const readAt = new Date();
    const sub = await this.gateway.findSubscription(customerId);
    const invoices = sub ? (await this.gateway.listInvoices(customerId, { limit: RECENT_INVOICES })).items : [];
    const outcome = await inTransaction(this.ds, async (tx) => {
      const applied = await this.applySubscription(tx, workspaceId, sub, readAt);
      let grants = 0;
      if (sub && holdsPlan(sub.status)) {
        const current = invoices
          .filter((i) => i.subscriptionId === sub.id && i.status === 'paid' && i.periodEnd > new Date())
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
        for (const invoice of current) grants += await this.grantFor(tx, workspaceId, invoice);
      }
      return { ...applied, grants };
    });
    if (outcome.planFrom !== outcome.planTo) await this.limiter.bumpAccessStamp(workspaceId);
    return outcome;
  }

  /** A paid checkout: a pack's credits (once per session), or the subscription it made. */
  private async applyCheckout(c: RemoteCheckout): Promise<void> {
    if (!c.complete || !c.paid || !c.workspaceId || !c.customerId) return;
    // A session counts only for the workspace that made it: its customer must be that workspace's.
    const owner = await this.workspaceOf(c.customerId);
    if (owner !== c.workspaceId) {
      this.logger.warn({ msg: 'checkout session ignored: its workspace does not own its customer', checkout_id: c.id, workspace_id: c.workspaceId });
      return;
    }
    if (c.mode === 'subscription') {
      await this.syncWorkspace(owner, c.customerId);
      return;
    }
    if (!c.pack) return;
    const credits = PACKS[c.pack].credits;
    await inTransaction(this.ds, async (tx) => {
      if (!(await this.allocations.claimGrant(tx, owner, `pack:${c.id}`, 'pack', credits))) return;
      await this.billing.credit(tx, { workspaceId: owner, amount: credits, reason: 'pack_purchased', refType: 'checkout', refId: c.id });
      await this.audit.record(tx, { workspaceId: owner, actorUserId: null, action: 'billing.pack_purchased', targetType: 'checkout', targetId: c.id, details: { pack: c.pack, credits } });
    });
  }

  /** The plan the subscription gives (Starter when it gives none), and the local copy. */
  private async applySubscription(tx: Tx, workspaceId: string, sub: RemoteSubscription | null, readAt: Date): Promise<{ planFrom: Plan; planTo: Plan }> {
    const planFrom = (await this.plans.lockPlan(workspaceId, tx)) ?? 'starter';
    const previous = await this.subscriptions.get(workspaceId, tx, true);
    // A sync that read the provider before the one already applied has nothing newer to say.
    if (previous && previous.syncedAt > readAt) return { planFrom, planTo: planFrom };
    if (sub?.plan) await this.subscriptions.save(tx, workspaceId, { ...sub, plan: sub.plan }, readAt);
    // None live at the provider (the newest ended): a copy still live would keep the plan's status and the Starter pass away.
    else if (!sub && previous && holdsPlan(previous.status)) await this.subscriptions.markEnded(tx, workspaceId, readAt);
    // A workspace that never had a subscription (a pack buyer, say) keeps the plan it has: billing did not give it.
    const planTo: Plan = sub?.plan && holdsPlan(sub.status) ? sub.plan : sub || previous ? 'starter' : planFrom;
    const ended = previous !== null && holdsPlan(previous.status) && !(sub && holdsPlan(sub.status));
    if (ended) await this.openStarterAfter(tx, workspaceId, previous.providerSubscriptionId);
    if (planTo !== planFrom) {
      await this.billing.changePlan(tx, workspaceId, planTo);
      await this.audit.record(tx, { workspaceId, actorUserId: null, action: 'plan.changed', targetType: 'workspace', targetId: workspaceId, details: { from: planFrom, to: planTo, source: 'billing' } });
      this.logger.log({ msg: 'plan changed by billing', workspace_id: workspaceId, from: planFrom, to: planTo, subscription_status: sub?.status ?? null });
    }
    return { planFrom, planTo };
  }

  /**
   * A subscription ended: the Starter allocation opens at once (what is left of the paid one
   * expires), until the next anniversary of the workspace's creation; the pass goes on from there.
   * Keyed by the subscription that ended, so it happens once however many syncs see the end.
   */
  private async openStarterAfter(tx: Tx, workspaceId: string, subscriptionId: string): Promise<void> {
    const current = await this.allocations.get(workspaceId, tx);
    if (!current) return;
    const key = `starter:after:${subscriptionId}`;
    const credits = PLAN_ALLOCATIONS.starter;
    if (!(await this.allocations.claimGrant(tx, workspaceId, key, 'allocation', credits))) return;
    await this.allocations.openPeriod(tx, workspaceId, { key, credits, resetsAt: currentPeriodEnd(current.anchor, new Date()).end });
  }

  /**
   * A paid invoice's grant, once per invoice: a new period (its plan's allocation, what was left
   * expires) or an upgrade's top-up to the new plan's allocation. Answers 1 when it granted.
   */
  private async grantFor(tx: Tx, workspaceId: string, invoice: RemoteInvoice): Promise<number> {
    if (!invoice.plan) return 0;
    const credits = PLAN_ALLOCATIONS[invoice.plan];
    const key = `invoice:${invoice.id}`;
    if (invoice.reason === 'subscription_create' || invoice.reason === 'subscription_cycle') {
      if (!(await this.allocations.claimGrant(tx, workspaceId, key, 'allocation', credits))) return 0;
      await this.allocations.openPeriod(tx, workspaceId, { key, credits, resetsAt: invoice.periodEnd });
      return 1;
    }
    if (invoice.reason === 'subscription_update') {
      if (!(await this.allocations.claimGrant(tx, workspaceId, key, 'top_up', credits))) return 0;
      await this.allocations.topUp(tx, workspaceId, key, credits);
      return 1;
    }
    return 0;
  }

  /** Tells the owners (mail) and the audit log; the provider retries the payment on its own. */
  private async paymentFailed(workspaceId: string, invoice: RemoteInvoice, eventId: string): Promise<void> {
    await inTransaction(this.ds, async (tx) => {
      await this.outbox.record(tx, {
        type: 'billing.payment_failed',
        workspaceId,
        payload: { invoiceId: invoice.id, amount: invoice.amount, currency: invoice.currency, hostedUrl: invoice.hostedUrl, plan: invoice.plan ?? 'unknown' },
      });
      await this.audit.record(tx, { workspaceId, actorUserId: null, action: 'billing.payment_failed', targetType: 'invoice', targetId: invoice.id, details: { event_id: eventId, amount: invoice.amount, currency: invoice.currency } });
    });
    this.logger.warn({ msg: 'subscription payment failed', workspace_id: workspaceId, invoice_id: invoice.id });
  }

  private async workspaceOf(customerId: string): Promise<string | null> {
    return this.plans.workspaceOfCustomer(customerId);
  }
}
