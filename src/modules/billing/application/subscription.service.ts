import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, type Caller } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { AuditLog } from '../../audit/index.js';
import { isUpgrade, PACKS, type PackId, type PaidPlan } from '../domain/catalogue.js';
import { PlansRepository } from '../infrastructure/plans.repository.js';
import { holdsPlan, SubscriptionsRepository, type LocalSubscription } from '../infrastructure/subscriptions.repository.js';
import { BillingSync } from './billing-sync.js';
import { PaymentGateway, PaymentProviderUnavailable, type RemoteSubscription } from './ports/payment-gateway.js';

/** What `POST /billing/checkout` did: a hosted page to pay on, or a change to the subscription there is. */
export type CheckoutOutcome =
  | { kind: 'checkout'; url: string; sessionId: string }
  | { kind: 'upgraded' | 'downgrade_scheduled' | 'downgrade_cancelled' | 'resumed'; subscription: LocalSubscription };

/**
 * The billing actions of owners and admins: start a checkout (a plan or a pack), change the plan of
 * a subscription there is (an upgrade at once and prorated, a downgrade at the period's end), open
 * the provider's portal, cancel at the period's end and resume. Each is audited; what the provider
 * then says comes back through `BillingSync`, which this also runs at once after a change so the
 * answer already shows it.
 */
@Injectable()
export class SubscriptionService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly config: AppConfig,
    private readonly gateway: PaymentGateway,
    private readonly plans: PlansRepository,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly sync: BillingSync,
    private readonly audit: AuditLog,
  ) {}

  async checkout(caller: Caller, item: { plan: PaidPlan } | { pack: PackId }): Promise<CheckoutOutcome> {
    this.assertConfigured();
    const customerId = await this.customerOf(caller.workspaceId);
    const urls = { successUrl: `${this.config.appUrl}/settings/billing?checkout=success`, cancelUrl: `${this.config.appUrl}/settings/billing?checkout=cancelled` };
    if ('pack' in item) {
      const session = await this.gateway.startCheckout({ kind: 'pack', workspaceId: caller.workspaceId, customerId, pack: item.pack, ...urls });
      await this.audited(caller, 'billing.checkout_started', 'checkout', session.id, { pack: item.pack, credits: PACKS[item.pack].credits });
      return { kind: 'checkout', url: session.url, sessionId: session.id };
    }
    const live = await this.liveSubscription(caller.workspaceId);
    if (!live) {
      const session = await this.gateway.startCheckout({ kind: 'subscription', workspaceId: caller.workspaceId, customerId, plan: item.plan, ...urls });
      await this.audited(caller, 'billing.checkout_started', 'checkout', session.id, { plan: item.plan });
      return { kind: 'checkout', url: session.url, sessionId: session.id };
    }
    const { local } = live;
    let { remote } = live;
    // Choosing a plan takes a pending cancel back: the subscription goes on, on that plan.
    if (remote.cancelAtPeriodEnd) remote = await this.gateway.setCancelAtPeriodEnd(remote, false);
    if (item.plan === local.plan) {
      if (live.remote.cancelAtPeriodEnd) return this.changed(caller, 'resumed', { plan: item.plan });
      if (!live.remote.pendingPlan) throw new AppError('plan_unchanged', `The workspace is already on the ${item.plan} plan.`, { plan: item.plan });
      await this.gateway.cancelScheduledChange(remote);
      return this.changed(caller, 'downgrade_cancelled', { plan: item.plan, cancelled: live.remote.pendingPlan });
    }
    if (isUpgrade(local.plan, item.plan)) {
      await this.gateway.upgrade(remote, item.plan);
      return this.changed(caller, 'upgraded', { from: local.plan, to: item.plan });
    }
    await this.gateway.scheduleDowngrade(remote, item.plan);
    return this.changed(caller, 'downgrade_scheduled', { from: local.plan, to: item.plan, at: local.currentPeriodEnd.toISOString() });
  }

  async portal(caller: Caller): Promise<{ url: string }> {
    this.assertConfigured();
    const customerId = await this.customerOf(caller.workspaceId);
    return this.gateway.openPortal(customerId, `${this.config.appUrl}/settings/billing`);
  }

  /** Cancels at the period's end (`cancel: true`) or takes that back; 409 `no_subscription` without one. */
  async setCancelled(caller: Caller, cancel: boolean): Promise<LocalSubscription> {
    const live = await this.liveSubscription(caller.workspaceId);
    if (!live) throw new AppError('no_subscription', 'The workspace has no subscription to cancel or resume; it is on the Starter plan.');
    await this.gateway.setCancelAtPeriodEnd(live.remote, cancel);
    const outcome = await this.changed(caller, cancel ? 'cancel_scheduled' : 'resumed', { plan: live.local.plan, at: live.local.currentPeriodEnd.toISOString() });
    return outcome.subscription;
  }

  /** In production the offline sandbox never takes a payment: billing needs Stripe's settings there. */
  private assertConfigured(): void {
    if (this.config.production && this.gateway.mode === 'sandbox') throw new PaymentProviderUnavailable('STRIPE_SECRET_KEY is not set in production');
  }

  /** The workspace's customer at the provider, made once (idempotent at the provider, kept first-wins here). */
  private async customerOf(workspaceId: string): Promise<string> {
    const known = await this.plans.customerId(workspaceId);
    if (known) return known;
    const name = (await this.plans.workspaceName(workspaceId)) ?? workspaceId;
    const created = await this.gateway.createCustomer({ workspaceId, name });
    return inTransaction(this.ds, (tx) => this.plans.setCustomerId(tx, workspaceId, created));
  }

  /** The subscription that holds a plan now, as the provider has it, with the local copy. */
  private async liveSubscription(workspaceId: string): Promise<{ remote: RemoteSubscription; local: LocalSubscription } | null> {
    const local = await this.subscriptions.get(workspaceId);
    if (!local || !holdsPlan(local.status)) return null;
    const remote = await this.gateway.getSubscription(local.providerSubscriptionId);
    if (!remote || !holdsPlan(remote.status) || !remote.plan) return null;
    return { remote, local: { ...local, plan: remote.plan } };
  }

  /** After a change at the provider: applies it here at once, records it, answers the subscription. */
  private async changed<K extends 'upgraded' | 'downgrade_scheduled' | 'downgrade_cancelled' | 'cancel_scheduled' | 'resumed'>(
    caller: Caller,
    kind: K,
    details: Record<string, unknown>,
  ): Promise<{ kind: K; subscription: LocalSubscription }> {
    const customerId = await this.plans.customerId(caller.workspaceId);
    if (customerId) await this.sync.syncWorkspace(caller.workspaceId, customerId);
    const subscription = await this.subscriptions.get(caller.workspaceId);
    await this.audited(caller, 'billing.subscription_changed', 'subscription', subscription?.providerSubscriptionId ?? null, { change: kind, ...details });
    return { kind, subscription: subscription! };
  }

  private audited(caller: Caller, action: 'billing.checkout_started' | 'billing.subscription_changed', targetType: string, targetId: string | null, details: Record<string, unknown>): Promise<void> {
    return inTransaction(this.ds, (tx) => this.audit.record(tx, { workspaceId: caller.workspaceId, actorUserId: caller.userId, action, targetType, targetId, details }));
  }
}
