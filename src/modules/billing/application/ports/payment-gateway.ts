import { AppError } from '../../../../core/index.js';
import type { PackId, PaidPlan, Price } from '../../domain/catalogue.js';

/** Subscription statuses the service keeps (Stripe's others map onto these; see each adapter). */
export type SubscriptionStatus = 'active' | 'trialing' | 'past_due' | 'canceled' | 'incomplete';

/** A subscription as the provider holds it now. */
export interface RemoteSubscription {
  id: string;
  customerId: string;
  /** From the subscription's metadata (`workspace_id`), set when the checkout made it. */
  workspaceId: string | null;
  /** The plan of its current price; null when the price is none of ours. */
  plan: PaidPlan | null;
  status: SubscriptionStatus;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
  /** A downgrade scheduled for the period's end (the next phase of its schedule), if any. */
  pendingPlan: PaidPlan | null;
  /** The provider's id of the subscription's item (for a price change). */
  itemId: string;
}

/** Why an invoice was made, as Stripe says it (`billing_reason`). */
export type InvoiceReason = 'subscription_create' | 'subscription_cycle' | 'subscription_update' | 'manual' | 'other';

export interface RemoteInvoice {
  id: string;
  number: string | null;
  customerId: string;
  subscriptionId: string | null;
  status: 'draft' | 'open' | 'paid' | 'uncollectible' | 'void';
  reason: InvoiceReason;
  /** Total in the currency's smallest unit. */
  amount: number;
  currency: string;
  hostedUrl: string | null;
  periodStart: Date;
  periodEnd: Date;
  /** The subscription's plan this invoice bills for (its subscription line's price), if any. */
  plan: PaidPlan | null;
  createdAt: Date;
}

/** A Checkout Session as the provider holds it now. */
export interface RemoteCheckout {
  id: string;
  /** `client_reference_id`: the workspace that started it. */
  workspaceId: string | null;
  customerId: string | null;
  mode: 'subscription' | 'payment';
  /** `complete` once paid (a subscription's first invoice, or the pack's payment). */
  complete: boolean;
  paid: boolean;
  subscriptionId: string | null;
  /** The pack a payment session sold (its metadata `pack`). */
  pack: PackId | null;
}

/**
 * A verified event. Handlers never trust its order or its copy of the object: they read the object
 * again through the gateway (`objectId`), so any order of delivery converges on the provider's state.
 */
export interface BillingEvent {
  id: string;
  type: string;
  /** The event's object: `cs_…`, `sub_…`, `in_…`. */
  objectId: string;
  objectType: 'checkout.session' | 'subscription' | 'invoice' | 'other';
  createdAt: Date;
}

/** A signature that did not verify (forged, stale, missing): the intake answers 401. */
export class InvalidEventSignature extends Error {}

export type CheckoutRequest =
  | { kind: 'subscription'; workspaceId: string; customerId: string; plan: PaidPlan; successUrl: string; cancelUrl: string }
  | { kind: 'pack'; workspaceId: string; customerId: string; pack: PackId; successUrl: string; cancelUrl: string };

/** The customer a workspace pays as. */
export interface CustomerRequest {
  workspaceId: string;
  name: string;
  /** Checkout asks the payer for it when absent. */
  email?: string;
}

/**
 * The payment provider. Stripe (`STRIPE_SECRET_KEY` set) or the offline sandbox; the billing
 * context never knows which. Every method may throw `PaymentProviderUnavailable` when the provider
 * cannot be reached or answers an error the caller cannot act on.
 */
export abstract class PaymentGateway {
  abstract readonly mode: 'stripe' | 'sandbox';

  /** The prices of the paid plans and the packs (cached by the adapter; prices change rarely). */
  abstract prices(): Promise<{ plans: Record<PaidPlan, Price>; packs: Record<PackId, Price> }>;

  /** Creates the workspace's customer once (idempotency key per workspace); answers its id. */
  abstract createCustomer(req: CustomerRequest): Promise<string>;

  /** A hosted checkout page: `client_reference_id` and metadata carry the workspace id. */
  abstract startCheckout(req: CheckoutRequest): Promise<{ id: string; url: string }>;

  /** The hosted customer portal (cards, invoices, cancel). */
  abstract openPortal(customerId: string, returnUrl: string): Promise<{ url: string }>;

  abstract getCheckout(id: string): Promise<RemoteCheckout | null>;
  abstract getSubscription(id: string): Promise<RemoteSubscription | null>;
  /** The customer's newest subscription that is not canceled, or null (reconciliation). */
  abstract findSubscription(customerId: string): Promise<RemoteSubscription | null>;
  abstract getInvoice(id: string): Promise<RemoteInvoice | null>;
  /** Newest first; `startingAfter` is the last id of the previous page. */
  abstract listInvoices(customerId: string, page: { limit: number; startingAfter?: string }): Promise<{ items: RemoteInvoice[]; hasMore: boolean }>;

  /** An upgrade: the new price at once, prorated and invoiced now. */
  abstract upgrade(subscription: RemoteSubscription, plan: PaidPlan): Promise<RemoteSubscription>;
  /** A downgrade: the new price from the current period's end (a schedule's next phase). */
  abstract scheduleDowngrade(subscription: RemoteSubscription, plan: PaidPlan): Promise<RemoteSubscription>;
  /** Drops a scheduled downgrade (the subscription stays on its current plan). */
  abstract cancelScheduledChange(subscription: RemoteSubscription): Promise<RemoteSubscription>;
  abstract setCancelAtPeriodEnd(subscription: RemoteSubscription, cancel: boolean): Promise<RemoteSubscription>;

  /** Verifies the signature on the raw bytes (tolerance 300 s) before parsing; `InvalidEventSignature` otherwise. */
  abstract parseEvent(raw: Buffer, signature: string | undefined): BillingEvent;
}

/** The provider could not be reached, or refused in a way the client cannot fix: 503 to the client. */
export class PaymentProviderUnavailable extends AppError {
  constructor(reason: string) {
    super('payment_provider_unavailable', 'The payment provider could not be reached; nothing was changed. Try again in a minute.');
    // For the log only: the client sees the message above, never the provider's own words.
    this.cause = reason;
  }
}

