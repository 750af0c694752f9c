import { createHash, randomBytes } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { AppError } from '../../../core/index.js';
import { changedRows, inTransaction, type Tx } from '../../../platform/database/index.js';
import { API_PREFIX } from '../../../platform/http/index.js';
import { isPackId, isPaidPlan, type PackId, type PaidPlan, type Price } from '../domain/catalogue.js';
import {
  InvalidEventSignature, PaymentGateway, PaymentProviderUnavailable, type BillingEvent, type CheckoutRequest, type CustomerRequest, type InvoiceReason,
  type RemoteCheckout, type RemoteInvoice, type RemoteSubscription, type SubscriptionStatus,
} from '../application/ports/payment-gateway.js';

/** What the sandbox sells and its price: the paid plans and the packs. */
export type SandboxItem = PaidPlan | PackId;

const price = (item: SandboxItem, unitAmount: number, interval: 'month' | null): Price => ({ id: `price_sandbox_${item}`, unitAmount, currency: 'usd', interval });

/** The sandbox's fixed prices (US cents): Pro $29 and Agency $99 a month, packs $9, $20, $35 and $60 once. */
export const SANDBOX_PRICES: Readonly<{ plans: Readonly<Record<PaidPlan, Price>>; packs: Readonly<Record<PackId, Price>> }> = {
  plans: { pro: price('pro', 2900, 'month'), agency: price('agency', 9900, 'month') },
  packs: { pack_100: price('pack_100', 900, null), pack_250: price('pack_250', 2000, null), pack_500: price('pack_500', 3500, null), pack_1000: price('pack_1000', 6000, null) },
};

/** The sandbox price of a plan or a pack. */
export function sandboxPrice(item: SandboxItem): Price {
  return isPaidPlan(item) ? SANDBOX_PRICES.plans[item] : SANDBOX_PRICES.packs[item];
}

/** The kinds of object the sandbox makes, by the prefix of their ids (Stripe's, marked `_sbx_`). */
export type SandboxIdPrefix = 'cs' | 'sub' | 'si' | 'in' | 'evt' | 'bps';

/**
 * A fresh sandbox id: the prefix, `_sbx_`, 32 random hex characters (128 bits). A checkout
 * session's or a portal session's id is the only credential of its page, so it must not be guessed.
 */
export function sandboxId(prefix: SandboxIdPrefix): string {
  return `${prefix}_sbx_${randomBytes(16).toString('hex')}`;
}

/** The shape of every id `sandboxId` makes for `prefix`. */
export function isSandboxId(prefix: SandboxIdPrefix, value: string): boolean {
  return new RegExp(`^${prefix}_sbx_[0-9a-f]{32}$`).test(value);
}

/**
 * A workspace's customer id: derived from the workspace id, so creating it is one
 * `INSERT … ON CONFLICT DO NOTHING` and concurrent first calls agree on one customer.
 */
export function sandboxCustomerId(workspaceId: string): string {
  return `cus_sbx_${createHash('sha256').update(`sandbox-customer:${workspaceId}`).digest('hex').slice(0, 32)}`;
}

/**
 * `anchor` plus `months` calendar months, in UTC, on the anchor's day of month, or on the month's
 * last day when it is shorter (Stripe's billing anchor: Jan 31 → Feb 28 → Mar 31). Periods are
 * always counted from the anchor, so a short month never shifts the ones after it.
 */
export function addMonths(anchor: Date, months: number): Date {
  const first = new Date(Date.UTC(anchor.getUTCFullYear(), anchor.getUTCMonth() + months, 1, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()));
  const lastDay = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(anchor.getUTCDate(), lastDay));
  return first;
}

/**
 * What an upgrade charges now: the difference of the monthly prices times the share of the period
 * still to run at `now`, rounded to the cent; never negative.
 */
export function prorationAmount(fromMonthly: number, toMonthly: number, period: { start: Date; end: Date }, now: Date): number {
  const length = period.end.getTime() - period.start.getTime();
  if (length <= 0) return 0;
  const left = Math.min(Math.max(period.end.getTime() - now.getTime(), 0), length) / length;
  return Math.max(0, Math.round((toMonthly - fromMonthly) * left));
}

/** An invoice's number: the customer's invoice count, `SBX-0001` onwards. */
export function invoiceNumber(seq: number): string {
  return `SBX-${String(seq).padStart(4, '0')}`;
}

/**
 * Where the hosted checkout sends the customer once paid: Stripe's `{CHECKOUT_SESSION_ID}`
 * placeholder filled in when the URL has one, else `session_id` added to its query.
 */
export function successRedirect(successUrl: string, sessionId: string): string {
  if (successUrl.includes('{CHECKOUT_SESSION_ID}')) return successUrl.replaceAll('{CHECKOUT_SESSION_ID}', sessionId);
  const url = new URL(successUrl);
  url.searchParams.set('session_id', sessionId);
  return url.toString();
}

/** Where the sandbox's hosted pages are served, under the API prefix (`BillingSandboxController`). */
export const SANDBOX_PAGES_PATH = 'billing/sandbox';

/** An open checkout session can be paid for this long (Stripe's default expiry). */
export const CHECKOUT_LIFE_MS = 24 * 3_600_000;
/** A portal session's page answers for this long. */
export const PORTAL_LIFE_MS = 3_600_000;
/** Subscriptions renewed per transaction of `renewDue`. */
const RENEW_BATCH = 100;
/** Periods one renewal may pass at most (a sandbox left off for years catches up over several passes). */
const MAX_PERIODS_PER_RENEWAL = 36;

interface CustomerData {
  workspaceId: string;
  name: string;
  email: string | null;
  /** Invoices made so far: the last invoice number. */
  invoices: number;
}

interface StoredEvent {
  id: string;
  type: string;
  objectId: string;
  objectType: BillingEvent['objectType'];
  createdAt: string;
}

interface CheckoutData {
  workspaceId: string;
  customerId: string;
  mode: 'subscription' | 'payment';
  plan: PaidPlan | null;
  pack: PackId | null;
  amount: number;
  currency: string;
  successUrl: string;
  cancelUrl: string;
  complete: boolean;
  paid: boolean;
  subscriptionId: string | null;
  expiresAt: string;
  /** The events its completion made, answered again when it is completed again. */
  events: StoredEvent[];
}

interface SubscriptionData {
  customerId: string;
  workspaceId: string;
  plan: PaidPlan;
  status: SubscriptionStatus;
  /** The billing anchor: every period ends a whole number of months after it. */
  anchor: string;
  /** The current period is the `cycle`-th: it ends `cycle` months after the anchor. */
  cycle: number;
  periodStart: string;
  periodEnd: string;
  cancelAtPeriodEnd: boolean;
  pendingPlan: PaidPlan | null;
  itemId: string;
  canceledAt: string | null;
}

interface InvoiceData {
  customerId: string;
  subscriptionId: string | null;
  seq: number;
  number: string;
  status: RemoteInvoice['status'];
  reason: InvoiceReason;
  amount: number;
  currency: string;
  periodStart: string;
  periodEnd: string;
  plan: PaidPlan | null;
}

interface PortalData {
  customerId: string;
  returnUrl: string;
  expiresAt: string;
}

type Kind = 'customer' | 'checkout' | 'subscription' | 'invoice' | 'portal';
type Queryable = Pick<EntityManager, 'query'>;

interface Row<T> {
  id: string;
  data: T;
  created_at: Date;
}

/** What the hosted checkout page shows. */
export interface SandboxCheckoutView {
  id: string;
  mode: 'subscription' | 'payment';
  item: SandboxItem;
  amount: number;
  currency: string;
  interval: 'month' | null;
  complete: boolean;
  successUrl: string;
  cancelUrl: string;
}

/** What the hosted portal page shows. */
export interface SandboxPortalView {
  id: string;
  customerId: string;
  returnUrl: string;
  subscription: RemoteSubscription | null;
  invoices: RemoteInvoice[];
}

/**
 * The payment provider when no `STRIPE_SECRET_KEY` is set: it keeps the provider's objects
 * (customers, checkout and portal sessions, subscriptions, invoices) in `billing_sandbox_objects`
 * and makes the events Stripe would send, so subscribing, buying packs, changing plan, cancelling
 * and renewing run offline through the same intake and sync as with Stripe. No money moves.
 *
 * Events: `complete` and `renewDue` answer theirs (the hosted page and the renewal pass hand them to
 * the intake); the plan changes (`upgrade`, `scheduleDowngrade`, `cancelScheduledChange`,
 * `setCancelAtPeriodEnd`) give theirs to `onEvents` after their change commits.
 */
export class SandboxGateway extends PaymentGateway {
  readonly mode = 'sandbox' as const;

  /** Where the plan changes' events go (the module sets it to the event intake). */
  onEvents?: (events: BillingEvent[]) => Promise<void>;

  constructor(
    private readonly ds: DataSource,
    private readonly urls: { publicUrl: string },
    private readonly clock: () => Date = () => new Date(),
  ) {
    super();
  }

  prices(): Promise<{ plans: Record<PaidPlan, Price>; packs: Record<PackId, Price> }> {
    return Promise.resolve({ plans: { ...SANDBOX_PRICES.plans }, packs: { ...SANDBOX_PRICES.packs } });
  }

  async createCustomer(req: CustomerRequest): Promise<string> {
    const id = sandboxCustomerId(req.workspaceId);
    const data: CustomerData = { workspaceId: req.workspaceId, name: req.name, email: req.email ?? null, invoices: 0 };
    await this.ds.query(
      "INSERT INTO billing_sandbox_objects (id, kind, customer_id, data, created_at) VALUES ($1, 'customer', $1, $2::jsonb, $3) ON CONFLICT (id) DO NOTHING",
      [id, JSON.stringify(data), this.clock()],
    );
    return id;
  }

  async startCheckout(req: CheckoutRequest): Promise<{ id: string; url: string }> {
    await this.requireCustomer(req.customerId);
    const now = this.clock();
    const id = sandboxId('cs');
    const item: SandboxItem = req.kind === 'subscription' ? req.plan : req.pack;
    const p = sandboxPrice(item);
    const data: CheckoutData = {
      workspaceId: req.workspaceId,
      customerId: req.customerId,
      mode: req.kind === 'subscription' ? 'subscription' : 'payment',
      plan: req.kind === 'subscription' ? req.plan : null,
      pack: req.kind === 'pack' ? req.pack : null,
      amount: p.unitAmount,
      currency: p.currency,
      successUrl: req.successUrl,
      cancelUrl: req.cancelUrl,
      complete: false,
      paid: false,
      subscriptionId: null,
      expiresAt: new Date(now.getTime() + CHECKOUT_LIFE_MS).toISOString(),
      events: [],
    };
    await this.insert(this.ds.manager, id, 'checkout', req.customerId, data, now);
    return { id, url: `${this.pagesUrl()}/checkout/${id}` };
  }

  async openPortal(customerId: string, returnUrl: string): Promise<{ url: string }> {
    await this.requireCustomer(customerId);
    const now = this.clock();
    const id = sandboxId('bps');
    const data: PortalData = { customerId, returnUrl, expiresAt: new Date(now.getTime() + PORTAL_LIFE_MS).toISOString() };
    await this.insert(this.ds.manager, id, 'portal', customerId, data, now);
    return { url: `${this.pagesUrl()}/portal/${id}` };
  }

  async getCheckout(id: string): Promise<RemoteCheckout | null> {
    const row = await this.read<CheckoutData>(this.ds.manager, id, 'checkout');
    return row && toCheckout(row);
  }

  async getSubscription(id: string): Promise<RemoteSubscription | null> {
    const row = await this.read<SubscriptionData>(this.ds.manager, id, 'subscription');
    return row && toSubscription(row);
  }

  async findSubscription(customerId: string): Promise<RemoteSubscription | null> {
    const rows: Array<Row<SubscriptionData>> = await this.ds.query(
      `SELECT id, data, created_at FROM billing_sandbox_objects
        WHERE customer_id = $1 AND kind = 'subscription' AND data->>'status' <> 'canceled'
        ORDER BY created_at DESC, id DESC LIMIT 1`,
      [customerId],
    );
    return rows[0] ? toSubscription(rows[0]) : null;
  }

  async getInvoice(id: string): Promise<RemoteInvoice | null> {
    const row = await this.read<InvoiceData>(this.ds.manager, id, 'invoice');
    return row && toInvoice(row);
  }

  /** Newest first (by invoice number); an unknown `startingAfter` answers an empty page. */
  async listInvoices(customerId: string, page: { limit: number; startingAfter?: string }): Promise<{ items: RemoteInvoice[]; hasMore: boolean }> {
    const limit = Math.min(Math.max(Math.trunc(page.limit), 1), 100);
    let before: number | null = null;
    if (page.startingAfter !== undefined) {
      const after = await this.read<InvoiceData>(this.ds.manager, page.startingAfter, 'invoice');
      if (!after || after.data.customerId !== customerId) return { items: [], hasMore: false };
      before = after.data.seq;
    }
    const rows: Array<Row<InvoiceData>> = await this.ds.query(
      `SELECT id, data, created_at FROM billing_sandbox_objects
        WHERE customer_id = $1 AND kind = 'invoice' AND ($2::int IS NULL OR (data->>'seq')::int < $2::int)
        ORDER BY (data->>'seq')::int DESC LIMIT $3`,
      [customerId, before, limit + 1],
    );
    return { items: rows.slice(0, limit).map(toInvoice), hasMore: rows.length > limit };
  }

  /** The new plan at once, with a paid proration invoice for the rest of the period; drops a pending downgrade. */
  upgrade(subscription: RemoteSubscription, plan: PaidPlan): Promise<RemoteSubscription> {
    return this.change(subscription.id, async (tx, id, sub, now) => {
      const from = sub.plan;
      sub.plan = plan;
      sub.pendingPlan = null;
      const amount = prorationAmount(SANDBOX_PRICES.plans[from].unitAmount, SANDBOX_PRICES.plans[plan].unitAmount, { start: new Date(sub.periodStart), end: new Date(sub.periodEnd) }, now);
      const invoice = await this.invoice(tx, id, sub, 'subscription_update', amount, now);
      return [event('customer.subscription.updated', 'subscription', id, now), event('invoice.paid', 'invoice', invoice, now)];
    });
  }

  /** The new plan from the period's end (`pendingPlan`). */
  scheduleDowngrade(subscription: RemoteSubscription, plan: PaidPlan): Promise<RemoteSubscription> {
    return this.change(subscription.id, (_tx, id, sub, now) => {
      if (sub.pendingPlan === plan) return Promise.resolve([]);
      sub.pendingPlan = plan;
      return Promise.resolve([event('customer.subscription.updated', 'subscription', id, now)]);
    });
  }

  cancelScheduledChange(subscription: RemoteSubscription): Promise<RemoteSubscription> {
    return this.change(subscription.id, (_tx, id, sub, now) => {
      if (sub.pendingPlan === null) return Promise.resolve([]);
      sub.pendingPlan = null;
      return Promise.resolve([event('customer.subscription.updated', 'subscription', id, now)]);
    });
  }

  setCancelAtPeriodEnd(subscription: RemoteSubscription, cancel: boolean): Promise<RemoteSubscription> {
    return this.change(subscription.id, (_tx, id, sub, now) => {
      if (sub.cancelAtPeriodEnd === cancel) return Promise.resolve([]);
      sub.cancelAtPeriodEnd = cancel;
      return Promise.resolve([event('customer.subscription.updated', 'subscription', id, now)]);
    });
  }

  /** The sandbox never receives webhooks: its events reach the intake in-process. */
  parseEvent(): BillingEvent {
    throw new InvalidEventSignature('The billing sandbox sends no webhooks.');
  }

  /**
   * The customer pays on the hosted page. A subscription session makes the subscription (a month
   * from now) and its paid first invoice; a pack session is paid. Answers the events Stripe would
   * send. A session completed before makes nothing and answers the same events again (same ids:
   * the intake takes each once), so a completion whose delivery failed can be retried. An unknown
   * session, or an open one past its expiry, is `not_found`.
   */
  async complete(checkoutId: string): Promise<BillingEvent[]> {
    const stored = await inTransaction(this.ds, async (tx) => {
      const now = this.clock();
      const row = await this.read<CheckoutData>(tx, checkoutId, 'checkout', true);
      if (!row || (!row.data.complete && new Date(row.data.expiresAt) <= now)) throw AppError.notFound('Checkout session');
      const session = row.data;
      if (session.complete) return session.events;
      const events: BillingEvent[] = [event('checkout.session.completed', 'checkout.session', checkoutId, now)];
      if (session.mode === 'subscription' && session.plan) {
        const subscriptionId = sandboxId('sub');
        const sub: SubscriptionData = {
          customerId: session.customerId,
          workspaceId: session.workspaceId,
          plan: session.plan,
          status: 'active',
          anchor: now.toISOString(),
          cycle: 1,
          periodStart: now.toISOString(),
          periodEnd: addMonths(now, 1).toISOString(),
          cancelAtPeriodEnd: false,
          pendingPlan: null,
          itemId: sandboxId('si'),
          canceledAt: null,
        };
        await this.insert(tx, subscriptionId, 'subscription', sub.customerId, sub, now);
        const invoiceId = await this.invoice(tx, subscriptionId, sub, 'subscription_create', SANDBOX_PRICES.plans[sub.plan].unitAmount, now);
        session.subscriptionId = subscriptionId;
        events.push(event('customer.subscription.created', 'subscription', subscriptionId, now), event('invoice.paid', 'invoice', invoiceId, now));
      }
      session.complete = true;
      session.paid = true;
      session.events = events.map(storedEvent);
      await this.save(tx, checkoutId, session);
      return session.events;
    });
    return stored.map(fromStoredEvent);
  }

  /**
   * Renews every subscription whose period ended by `now`: one set to cancel at the period's end
   * is canceled (`customer.subscription.deleted`); any other takes its pending plan, moves to the
   * next period and pays its `subscription_cycle` invoice, once per period passed
   * (`customer.subscription.updated`, `invoice.paid`). Each due subscription is renewed once
   * however many processes call this at the same time (rows claimed `FOR UPDATE SKIP LOCKED`).
   */
  async renewDue(now: Date): Promise<BillingEvent[]> {
    const all: BillingEvent[] = [];
    for (;;) {
      const { events, claimed } = await inTransaction(this.ds, async (tx) => {
        const rows: Array<Row<SubscriptionData>> = await tx.query(
          `SELECT id, data, created_at FROM billing_sandbox_objects
            WHERE kind = 'subscription' AND data->>'status' <> 'canceled' AND (data->>'periodEnd')::timestamptz <= $1
            ORDER BY (data->>'periodEnd')::timestamptz LIMIT $2 FOR UPDATE SKIP LOCKED`,
          [now, RENEW_BATCH],
        );
        const made: BillingEvent[] = [];
        for (const row of rows) {
          made.push(...(await this.renew(tx, row.id, row.data, now)));
          await this.save(tx, row.id, row.data);
        }
        return { events: made, claimed: rows.length };
      });
      all.push(...events);
      if (claimed < RENEW_BATCH) return all;
    }
  }

  /** What the hosted checkout page shows; null for an unknown session or an open one past its expiry. */
  async checkoutView(id: string): Promise<SandboxCheckoutView | null> {
    const row = await this.read<CheckoutData>(this.ds.manager, id, 'checkout');
    if (!row) return null;
    const s = row.data;
    if (!s.complete && new Date(s.expiresAt) <= this.clock()) return null;
    const item: SandboxItem | null = s.plan ?? s.pack;
    if (!item) return null;
    return { id, mode: s.mode, item, amount: s.amount, currency: s.currency, interval: s.mode === 'subscription' ? 'month' : null, complete: s.complete, successUrl: s.successUrl, cancelUrl: s.cancelUrl };
  }

  /** A portal session's customer and return URL; null for an unknown or expired one. */
  async portalSession(id: string): Promise<{ customerId: string; returnUrl: string } | null> {
    const row = await this.read<PortalData>(this.ds.manager, id, 'portal');
    if (!row || new Date(row.data.expiresAt) <= this.clock()) return null;
    return { customerId: row.data.customerId, returnUrl: row.data.returnUrl };
  }

  /** What the hosted portal page shows; null for an unknown or expired portal session. */
  async portalView(id: string): Promise<SandboxPortalView | null> {
    const session = await this.portalSession(id);
    if (!session) return null;
    const { customerId, returnUrl } = session;
    const [subscription, invoices] = await Promise.all([this.findSubscription(customerId), this.listInvoices(customerId, { limit: 24 })]);
    return { id, customerId, returnUrl, subscription, invoices: invoices.items };
  }

  /** The hosted pages' address: `<publicUrl>/api/v1/billing/sandbox`. */
  pagesUrl(): string {
    return `${this.urls.publicUrl.replace(/\/+$/, '')}/${API_PREFIX}/${SANDBOX_PAGES_PATH}`;
  }

  private async renew(tx: Tx, id: string, sub: SubscriptionData, now: Date): Promise<BillingEvent[]> {
    const events: BillingEvent[] = [];
    for (let n = 0; n < MAX_PERIODS_PER_RENEWAL && sub.status !== 'canceled' && new Date(sub.periodEnd) <= now; n++) {
      if (sub.cancelAtPeriodEnd) {
        sub.status = 'canceled';
        sub.canceledAt = sub.periodEnd;
        return [...events, event('customer.subscription.deleted', 'subscription', id, now)];
      }
      const start = new Date(sub.periodEnd);
      if (sub.pendingPlan) sub.plan = sub.pendingPlan;
      sub.pendingPlan = null;
      sub.cycle += 1;
      sub.periodStart = sub.periodEnd;
      sub.periodEnd = addMonths(new Date(sub.anchor), sub.cycle).toISOString();
      const invoiceId = await this.invoice(tx, id, sub, 'subscription_cycle', SANDBOX_PRICES.plans[sub.plan].unitAmount, start);
      events.push(event('invoice.paid', 'invoice', invoiceId, now));
    }
    return events.length > 0 ? [event('customer.subscription.updated', 'subscription', id, now), ...events] : events;
  }

  /** A paid invoice of the subscription's current period and plan, numbered next for its customer. */
  private async invoice(tx: Tx, subscriptionId: string, sub: SubscriptionData, reason: InvoiceReason, amount: number, createdAt: Date): Promise<string> {
    const id = sandboxId('in');
    const seq = await this.nextInvoiceSeq(tx, sub.customerId);
    const data: InvoiceData = {
      customerId: sub.customerId,
      subscriptionId,
      seq,
      number: invoiceNumber(seq),
      status: 'paid',
      reason,
      amount,
      currency: SANDBOX_PRICES.plans[sub.plan].currency,
      periodStart: sub.periodStart,
      periodEnd: sub.periodEnd,
      plan: sub.plan,
    };
    await this.insert(tx, id, 'invoice', sub.customerId, data, createdAt);
    return id;
  }

  /** Counts the customer's invoices on its own row: the row lock orders concurrent invoices of one customer. */
  private async nextInvoiceSeq(tx: Tx, customerId: string): Promise<number> {
    const rows = await changedRows<{ seq: number }>(
      tx,
      `UPDATE billing_sandbox_objects SET data = jsonb_set(data, '{invoices}', to_jsonb(COALESCE((data->>'invoices')::int, 0) + 1))
        WHERE id = $1 AND kind = 'customer' RETURNING (data->>'invoices')::int AS seq`,
      [customerId],
    );
    if (!rows[0]) throw new PaymentProviderUnavailable(`No such customer: ${customerId}`);
    return rows[0].seq;
  }

  /**
   * Applies `apply` to the subscription under its row lock and saves it, then gives the events it
   * made to `onEvents`. A missing or canceled subscription is refused as Stripe refuses it.
   */
  private async change(
    subscriptionId: string,
    apply: (tx: Tx, id: string, sub: SubscriptionData, now: Date) => Promise<BillingEvent[]>,
  ): Promise<RemoteSubscription> {
    const { updated, events } = await inTransaction(this.ds, async (tx) => {
      const row = await this.read<SubscriptionData>(tx, subscriptionId, 'subscription', true);
      if (!row) throw new PaymentProviderUnavailable(`No such subscription: ${subscriptionId}`);
      if (row.data.status === 'canceled') throw new PaymentProviderUnavailable('A canceled subscription cannot be updated.');
      const made = await apply(tx, row.id, row.data, this.clock());
      await this.save(tx, row.id, row.data);
      return { updated: toSubscription(row), events: made };
    });
    if (events.length > 0) await this.onEvents?.(events);
    return updated;
  }

  private async requireCustomer(customerId: string): Promise<void> {
    if (!(await this.read<CustomerData>(this.ds.manager, customerId, 'customer'))) throw new PaymentProviderUnavailable(`No such customer: ${customerId}`);
  }

  private async read<T>(q: Queryable, id: string, kind: Kind, lock = false): Promise<Row<T> | null> {
    const rows: Array<Row<T>> = await q.query(
      `SELECT id, data, created_at FROM billing_sandbox_objects WHERE id = $1 AND kind = $2${lock ? ' FOR UPDATE' : ''}`,
      [id, kind],
    );
    return rows[0] ?? null;
  }

  private async insert(q: Queryable, id: string, kind: Kind, customerId: string, data: object, createdAt: Date): Promise<void> {
    await q.query('INSERT INTO billing_sandbox_objects (id, kind, customer_id, data, created_at) VALUES ($1, $2, $3, $4::jsonb, $5)', [id, kind, customerId, JSON.stringify(data), createdAt]);
  }

  private async save(q: Queryable, id: string, data: object): Promise<void> {
    await q.query('UPDATE billing_sandbox_objects SET data = $2::jsonb WHERE id = $1', [id, JSON.stringify(data)]);
  }
}

function event(type: string, objectType: BillingEvent['objectType'], objectId: string, createdAt: Date): BillingEvent {
  return { id: sandboxId('evt'), type, objectId, objectType, createdAt };
}

function storedEvent(e: BillingEvent): StoredEvent {
  return { ...e, createdAt: e.createdAt.toISOString() };
}

function fromStoredEvent(e: StoredEvent): BillingEvent {
  return { ...e, createdAt: new Date(e.createdAt) };
}

function toCheckout(row: Row<CheckoutData>): RemoteCheckout {
  const s = row.data;
  return {
    id: row.id,
    workspaceId: s.workspaceId,
    customerId: s.customerId,
    mode: s.mode,
    complete: s.complete,
    paid: s.paid,
    subscriptionId: s.subscriptionId,
    pack: isPackId(s.pack) ? s.pack : null,
  };
}

function toSubscription(row: Row<SubscriptionData>): RemoteSubscription {
  const s = row.data;
  return {
    id: row.id,
    customerId: s.customerId,
    workspaceId: s.workspaceId,
    plan: isPaidPlan(s.plan) ? s.plan : null,
    status: s.status,
    currentPeriodStart: new Date(s.periodStart),
    currentPeriodEnd: new Date(s.periodEnd),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    pendingPlan: isPaidPlan(s.pendingPlan) ? s.pendingPlan : null,
    itemId: s.itemId,
  };
}

function toInvoice(row: Row<InvoiceData>): RemoteInvoice {
  const i = row.data;
  return {
    id: row.id,
    number: i.number,
    customerId: i.customerId,
    subscriptionId: i.subscriptionId,
    status: i.status,
    reason: i.reason,
    amount: i.amount,
    currency: i.currency,
    hostedUrl: null,
    periodStart: new Date(i.periodStart),
    periodEnd: new Date(i.periodEnd),
    plan: isPaidPlan(i.plan) ? i.plan : null,
    createdAt: new Date(row.created_at),
  };
}
