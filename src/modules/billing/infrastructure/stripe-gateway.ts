import { Logger } from '@nestjs/common';
import Stripe from 'stripe';
import type { PricedItem, StripeSettings } from '../billing.settings.js';
import { isPackId, type PackId, type PaidPlan, type Price } from '../domain/catalogue.js';
import {
  InvalidEventSignature,
  PaymentGateway,
  PaymentProviderUnavailable,
  type BillingEvent,
  type CheckoutRequest,
  type CustomerRequest,
  type InvoiceReason,
  type RemoteCheckout,
  type RemoteInvoice,
  type RemoteSubscription,
  type SubscriptionStatus,
} from '../application/ports/payment-gateway.js';

/** The API version this SDK release is typed for; a new SDK that pins another fails to compile here. */
const API_VERSION = '2026-10-28.endive' satisfies Stripe.LatestApiVersion;
const PRICE_CACHE_MS = 10 * 60_000;
/** How old a webhook's signed timestamp may be. */
const SIGNATURE_TOLERANCE_S = 300;

const STATUSES: Readonly<Record<string, SubscriptionStatus>> = {
  active: 'active',
  trialing: 'trialing',
  past_due: 'past_due',
  unpaid: 'past_due',
  canceled: 'canceled',
  incomplete_expired: 'canceled',
  incomplete: 'incomplete',
  paused: 'incomplete',
};
const REASONS: ReadonlySet<string> = new Set<InvoiceReason>(['subscription_create', 'subscription_cycle', 'subscription_update', 'manual']);
const INVOICE_STATUSES: ReadonlySet<string> = new Set<RemoteInvoice['status']>(['draft', 'open', 'paid', 'uncollectible', 'void']);
const EVENT_OBJECTS: Readonly<Record<string, BillingEvent['objectType']>> = { 'checkout.session': 'checkout.session', subscription: 'subscription', invoice: 'invoice' };

type Prices = { plans: Record<PaidPlan, Price>; packs: Record<PackId, Price> };
type Id<T extends { id: string }> = string | T;

/**
 * The fields API versions before 2025-03-31 ("basil") answered and newer ones moved: periods on
 * the subscription (now on its items), `invoice.subscription` (now `parent.subscription_details`),
 * a line's `price` (now `pricing.price_details`). Read as fallbacks, so an account pinned to an
 * older version still maps.
 */
interface LegacySubscription {
  current_period_start?: number;
  current_period_end?: number;
}
interface LegacyInvoice {
  subscription?: Id<Stripe.Subscription> | null;
}
interface LegacyLine {
  price?: Id<Stripe.Price> | null;
  proration?: boolean;
}

const idOf = <T extends { id: string }>(value: Id<T> | null | undefined): string | null => (value == null ? null : typeof value === 'string' ? value : value.id);

/** Keys and webhook secrets never reach a log or an error message. */
const redact = (text: string): string => text.replace(/\b(sk|rk|pk)_(test|live)_\w+/g, '$1_$2_…').replace(/\bwhsec_\w+/g, 'whsec_…');

/**
 * The payment gateway on Stripe, through the official SDK: hosted Checkout and customer portal,
 * subscriptions (upgrades prorated and invoiced at once, downgrades as a schedule's next phase),
 * invoices, and signed webhook events. Card data never passes through here (checkout is hosted).
 */
export class StripeGateway extends PaymentGateway {
  readonly mode = 'stripe' as const;
  private readonly logger = new Logger('StripeGateway');
  private readonly stripe: Stripe;
  private readonly planOfPrice: ReadonlyMap<string, PaidPlan>;
  private priceCache: { at: number; prices: Promise<Prices> } | null = null;

  /** `clock`: milliseconds since the epoch (the price cache's clock; tests move it). */
  constructor(
    private readonly settings: StripeSettings,
    private readonly urls: { appUrl: string },
    private readonly clock: () => number = Date.now,
  ) {
    super();
    const base = settings.apiBase;
    this.stripe = new Stripe(settings.secretKey, {
      apiVersion: API_VERSION,
      maxNetworkRetries: 2,
      timeout: 10_000,
      telemetry: false,
      appInfo: { name: 'Persona Studio', url: urls.appUrl },
      ...(base && {
        host: base.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: base.port || (base.protocol === 'https:' ? 443 : 80),
        protocol: base.protocol === 'https:' ? 'https' : 'http',
      }),
    });
    this.planOfPrice = new Map<string, PaidPlan>([
      [settings.prices.pro, 'pro'],
      [settings.prices.agency, 'agency'],
    ]);
  }

  prices(): Promise<Prices> {
    const now = this.clock();
    if (!this.priceCache || now - this.priceCache.at >= PRICE_CACHE_MS) {
      const prices = this.loadPrices();
      const entry = { at: now, prices };
      this.priceCache = entry;
      // A failed load is not kept: the next call asks Stripe again.
      prices.catch(() => {
        if (this.priceCache === entry) this.priceCache = null;
      });
    }
    return this.priceCache.prices;
  }

  private async loadPrices(): Promise<Prices> {
    const ids = this.settings.prices;
    const items = Object.keys(ids) as PricedItem[];
    const fetched = await Promise.all(items.map((item) => this.call('retrieve a price', () => this.stripe.prices.retrieve(ids[item]))));
    const mapped = Object.fromEntries(items.map((item, i) => [item, this.toPrice(item, fetched[i])])) as Record<PricedItem, Price>;
    const { pro, agency, ...packs } = mapped;
    return { plans: { pro, agency }, packs };
  }

  private toPrice(item: PricedItem, price: Stripe.Price): Price {
    const recurring = item === 'pro' || item === 'agency';
    const interval = price.recurring?.interval;
    if (price.unit_amount === null || recurring !== Boolean(price.recurring) || (recurring && interval !== 'month' && interval !== 'year')) {
      throw new PaymentProviderUnavailable(
        `Stripe price ${price.id} (${item}) must be a ${recurring ? 'monthly or yearly recurring' : 'one-time'} price with a unit amount.`,
      );
    }
    return { id: price.id, unitAmount: price.unit_amount, currency: price.currency, interval: interval === 'month' ? 'month' : interval === 'year' ? 'year' : null };
  }

  async createCustomer(req: CustomerRequest): Promise<string> {
    const customer = await this.call('create a customer', () =>
      this.stripe.customers.create({ name: req.name, email: req.email, metadata: { workspace_id: req.workspaceId } }, { idempotencyKey: `customer-${req.workspaceId}` }),
    );
    return customer.id;
  }

  async startCheckout(req: CheckoutRequest): Promise<{ id: string; url: string }> {
    const common = {
      customer: req.customerId,
      client_reference_id: req.workspaceId,
      success_url: this.absolute(req.successUrl),
      cancel_url: this.absolute(req.cancelUrl),
    };
    const params: Stripe.Checkout.SessionCreateParams =
      req.kind === 'subscription'
        ? {
            ...common,
            mode: 'subscription',
            line_items: [{ price: this.settings.prices[req.plan], quantity: 1 }],
            subscription_data: { metadata: { workspace_id: req.workspaceId } },
            metadata: { workspace_id: req.workspaceId },
          }
        : {
            ...common,
            mode: 'payment',
            line_items: [{ price: this.settings.prices[req.pack], quantity: 1 }],
            metadata: { workspace_id: req.workspaceId, pack: req.pack },
            payment_intent_data: { metadata: { workspace_id: req.workspaceId, pack: req.pack } },
          };
    const session = await this.call('start a checkout', () => this.stripe.checkout.sessions.create(params));
    if (!session.url) throw new PaymentProviderUnavailable(`Stripe answered checkout session ${session.id} without a URL.`);
    return { id: session.id, url: session.url };
  }

  async openPortal(customerId: string, returnUrl: string): Promise<{ url: string }> {
    const session = await this.call('open the portal', () => this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: this.absolute(returnUrl) }));
    return { url: session.url };
  }

  async getCheckout(id: string): Promise<RemoteCheckout | null> {
    const session = await this.find('read a checkout session', () => this.stripe.checkout.sessions.retrieve(id));
    if (!session) return null;
    const pack = session.metadata?.pack;
    return {
      id: session.id,
      workspaceId: session.client_reference_id ?? session.metadata?.workspace_id ?? null,
      customerId: idOf(session.customer),
      mode: session.mode === 'subscription' ? 'subscription' : 'payment',
      complete: session.status === 'complete',
      // `no_payment_required`: a 100 % discount; nothing is owed.
      paid: session.payment_status === 'paid' || session.payment_status === 'no_payment_required',
      subscriptionId: idOf(session.subscription),
      pack: isPackId(pack) ? pack : null,
    };
  }

  async getSubscription(id: string): Promise<RemoteSubscription | null> {
    const sub = await this.find('read a subscription', () => this.stripe.subscriptions.retrieve(id, { expand: ['schedule'] }));
    return sub && this.toSubscription(sub);
  }

  async findSubscription(customerId: string): Promise<RemoteSubscription | null> {
    const list = await this.call('list subscriptions', () => this.stripe.subscriptions.list({ customer: customerId, status: 'all', limit: 10 }));
    const newest = [...list.data].sort((a, b) => b.created - a.created).find((s) => s.status !== 'canceled' && s.status !== 'incomplete_expired');
    if (!newest) return null;
    // The list does not carry the schedule; read it again (expanded) for a pending downgrade.
    return newest.schedule ? this.getSubscription(newest.id) : this.toSubscription(newest);
  }

  async getInvoice(id: string): Promise<RemoteInvoice | null> {
    const invoice = await this.find('read an invoice', () => this.stripe.invoices.retrieve(id));
    return invoice && this.toInvoice(invoice);
  }

  async listInvoices(customerId: string, page: { limit: number; startingAfter?: string }): Promise<{ items: RemoteInvoice[]; hasMore: boolean }> {
    const list = await this.call('list invoices', () =>
      this.stripe.invoices.list({ customer: customerId, limit: page.limit, ...(page.startingAfter !== undefined && { starting_after: page.startingAfter }) }),
    );
    return { items: list.data.map((i) => this.toInvoice(i)), hasMore: list.has_more };
  }

  /** Releases any schedule first: an upgrade drops a scheduled downgrade (Stripe refuses item changes under a schedule). */
  async upgrade(subscription: RemoteSubscription, plan: PaidPlan): Promise<RemoteSubscription> {
    await this.releaseSchedule(subscription.id);
    const updated = await this.call('upgrade a subscription', () =>
      this.stripe.subscriptions.update(subscription.id, {
        items: [{ id: subscription.itemId, price: this.settings.prices[plan] }],
        proration_behavior: 'always_invoice',
        payment_behavior: 'pending_if_incomplete',
        expand: ['schedule'],
      }),
    );
    return this.toSubscription(updated);
  }

  /**
   * The current price until the period's end, then the new one: the subscription's schedule (made
   * from it, or the one it has) gets exactly these two phases and releases the subscription after.
   */
  async scheduleDowngrade(subscription: RemoteSubscription, plan: PaidPlan): Promise<RemoteSubscription> {
    const sub = await this.call('read a subscription', () => this.stripe.subscriptions.retrieve(subscription.id, { expand: ['schedule'] }));
    const item = sub.items.data[0];
    if (!item) throw new PaymentProviderUnavailable(`Stripe subscription ${sub.id} has no items.`);
    const periodEnd = this.period(sub).end;
    const existing = typeof sub.schedule === 'object' && sub.schedule && (sub.schedule.status === 'active' || sub.schedule.status === 'not_started') ? sub.schedule : null;
    const schedule = existing ?? (await this.call('create a subscription schedule', () => this.stripe.subscriptionSchedules.create({ from_subscription: sub.id })));
    const currentStart = schedule.current_phase?.start_date ?? schedule.phases[0]?.start_date ?? this.period(sub).start;
    const interval = (await this.prices()).plans[plan].interval ?? 'month';
    await this.call('schedule a downgrade', () =>
      this.stripe.subscriptionSchedules.update(schedule.id, {
        end_behavior: 'release',
        proration_behavior: 'none',
        phases: [
          { items: [{ price: item.price.id, quantity: 1 }], start_date: currentStart, end_date: periodEnd },
          // Newer API versions have no `iterations`: the phase lasts one billing interval, then the schedule releases.
          { items: [{ price: this.settings.prices[plan], quantity: 1 }], start_date: periodEnd, duration: { interval, interval_count: 1 } },
        ],
      }),
    );
    return this.reread(subscription.id);
  }

  async cancelScheduledChange(subscription: RemoteSubscription): Promise<RemoteSubscription> {
    await this.releaseSchedule(subscription.id);
    return this.reread(subscription.id);
  }

  /** A schedule, if any, is released first: Stripe refuses cancellation changes under one, and a cancellation supersedes a scheduled downgrade. */
  async setCancelAtPeriodEnd(subscription: RemoteSubscription, cancel: boolean): Promise<RemoteSubscription> {
    await this.releaseSchedule(subscription.id);
    const updated = await this.call('change cancellation at period end', () =>
      this.stripe.subscriptions.update(subscription.id, { cancel_at_period_end: cancel, expand: ['schedule'] }),
    );
    return this.toSubscription(updated);
  }

  parseEvent(raw: Buffer, signature: string | undefined): BillingEvent {
    if (!signature) throw new InvalidEventSignature('The Stripe-Signature header is missing.');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(raw, signature, this.settings.webhookSecret, SIGNATURE_TOLERANCE_S);
    } catch (err) {
      throw new InvalidEventSignature(`The Stripe event did not verify: ${redact(err instanceof Error ? err.message : String(err))}`);
    }
    const object = event.data?.object as { object?: unknown; id?: unknown } | undefined;
    if (!object || typeof object.id !== 'string') throw new InvalidEventSignature('The Stripe event carries no object.');
    return {
      id: event.id,
      type: event.type,
      objectId: object.id,
      objectType: EVENT_OBJECTS[String(object.object)] ?? 'other',
      createdAt: new Date(event.created * 1000),
    };
  }

  // ---- mapping ----

  private planOf(priceId: string | null): PaidPlan | null {
    return priceId === null ? null : (this.planOfPrice.get(priceId) ?? null);
  }

  /** The current period: the item's (API versions from 2025), else the subscription's (older ones). */
  private period(sub: Stripe.Subscription): { start: number; end: number } {
    const item = sub.items.data[0] as (Stripe.SubscriptionItem & LegacySubscription) | undefined;
    const legacy = sub as Stripe.Subscription & LegacySubscription;
    const start = item?.current_period_start ?? legacy.current_period_start;
    const end = item?.current_period_end ?? legacy.current_period_end;
    if (start === undefined || end === undefined) throw new PaymentProviderUnavailable(`Stripe subscription ${sub.id} has no current period.`);
    return { start, end };
  }

  private async toSubscription(sub: Stripe.Subscription): Promise<RemoteSubscription> {
    const item = sub.items.data[0];
    if (!item) throw new PaymentProviderUnavailable(`Stripe subscription ${sub.id} has no items.`);
    const { start, end } = this.period(sub);
    const plan = this.planOf(item.price.id);
    let schedule = sub.schedule;
    if (typeof schedule === 'string') schedule = await this.call('read a subscription schedule', () => this.stripe.subscriptionSchedules.retrieve(schedule as string));
    return {
      id: sub.id,
      customerId: idOf(sub.customer) ?? '',
      workspaceId: sub.metadata?.workspace_id ?? null,
      plan,
      status: STATUSES[sub.status] ?? 'incomplete',
      currentPeriodStart: new Date(start * 1000),
      currentPeriodEnd: new Date(end * 1000),
      cancelAtPeriodEnd: sub.cancel_at_period_end,
      pendingPlan: this.pendingPlan(schedule, end, plan),
      itemId: item.id,
    };
  }

  /** The plan of the schedule's phase that starts at or after the period's end, when it differs from the current one. */
  private pendingPlan(schedule: Stripe.SubscriptionSchedule | null, periodEnd: number, current: PaidPlan | null): PaidPlan | null {
    if (!schedule || (schedule.status !== 'active' && schedule.status !== 'not_started')) return null;
    const next = schedule.phases.filter((p) => p.start_date >= periodEnd).sort((a, b) => a.start_date - b.start_date)[0];
    const pending = next?.items[0] ? this.planOf(idOf(next.items[0].price)) : null;
    return pending === current ? null : pending;
  }

  private linePrice(line: Stripe.InvoiceLineItem): string | null {
    return idOf(line.pricing?.price_details?.price) ?? idOf((line as Stripe.InvoiceLineItem & LegacyLine).price);
  }

  private toInvoice(invoice: Stripe.Invoice): RemoteInvoice {
    // The subscription's line: Stripe's invoice-level period of a renewal is the period that ended.
    const planLines = invoice.lines.data.filter((l) => this.planOf(this.linePrice(l)) !== null);
    const charged = planLines.filter((l) => l.amount > 0);
    const proration = (l: Stripe.InvoiceLineItem) => l.parent?.subscription_item_details?.proration ?? (l as Stripe.InvoiceLineItem & LegacyLine).proration ?? false;
    const line = charged.find((l) => !proration(l)) ?? charged.at(-1) ?? planLines.at(-1) ?? null;
    const legacySubscription = (invoice as Stripe.Invoice & LegacyInvoice).subscription;
    return {
      id: invoice.id,
      number: invoice.number,
      customerId: idOf(invoice.customer) ?? '',
      subscriptionId: idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(legacySubscription),
      status: invoice.status !== null && INVOICE_STATUSES.has(invoice.status) ? (invoice.status as RemoteInvoice['status']) : 'draft',
      reason: invoice.billing_reason !== null && REASONS.has(invoice.billing_reason) ? (invoice.billing_reason as InvoiceReason) : 'other',
      amount: invoice.total,
      currency: invoice.currency,
      hostedUrl: invoice.hosted_invoice_url ?? null,
      periodStart: new Date((line?.period.start ?? invoice.period_start) * 1000),
      periodEnd: new Date((line?.period.end ?? invoice.period_end) * 1000),
      plan: line ? this.planOf(this.linePrice(line)) : null,
      createdAt: new Date(invoice.created * 1000),
    };
  }

  // ---- calls ----

  private async releaseSchedule(subscriptionId: string): Promise<void> {
    const sub = await this.call('read a subscription', () => this.stripe.subscriptions.retrieve(subscriptionId));
    const scheduleId = idOf(sub.schedule);
    if (scheduleId) await this.call('release a subscription schedule', () => this.stripe.subscriptionSchedules.release(scheduleId));
  }

  private async reread(id: string): Promise<RemoteSubscription> {
    const sub = await this.call('read a subscription', () => this.stripe.subscriptions.retrieve(id, { expand: ['schedule'] }));
    return this.toSubscription(sub);
  }

  /** Stripe requires absolute URLs: a path (`/billing?session={CHECKOUT_SESSION_ID}`) is the app's, kept byte for byte. */
  private absolute(url: string): string {
    return url.startsWith('/') && !url.startsWith('//') ? this.urls.appUrl.replace(/\/+$/, '') + url : url;
  }

  /** A read whose 404 (`resource_missing`) answers null. */
  private async find<T>(what: string, fn: () => Promise<T>): Promise<T | null> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof Stripe.errors.StripeError && err.statusCode === 404 && err.code === 'resource_missing') return null;
      throw this.unavailable(what, err);
    }
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.unavailable(what, err);
    }
  }

  private unavailable(what: string, err: unknown): Error {
    if (err instanceof PaymentProviderUnavailable) return err;
    const detail =
      err instanceof Stripe.errors.StripeError
        ? `${err.type}${err.code ? ` ${err.code}` : ''}${err.statusCode ? ` (HTTP ${err.statusCode})` : ''}: ${err.message}${err.requestId ? ` [${err.requestId}]` : ''}`
        : err instanceof Error
          ? err.message
          : String(err);
    const message = `Stripe could not ${what}: ${redact(detail)}`;
    this.logger.warn(message);
    return new PaymentProviderUnavailable(message);
  }
}
