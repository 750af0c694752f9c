import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './read-body.js';

/**
 * A fake Stripe that speaks Stripe's wire protocol, so the official SDK works against it unchanged:
 * bearer-key auth, form bodies in bracket notation, Stripe-shaped JSON objects and errors,
 * idempotency keys, `expand[]`, list pagination, and signed webhook deliveries. It answers as the
 * API version the SDK pins does (periods on the subscription item, `invoice.parent`, line
 * `pricing`); `legacyShapes` answers as versions before 2025-03-31 did.
 *
 * Time is Stripe's: real time, or for a customer attached to a test clock, the clock's frozen time.
 * Subscriptions renew only when their clock is advanced.
 */

/** The catalogue items the fake sells, as the service's settings name them. */
export type FakePriceItem = 'pro' | 'agency' | 'pack_100' | 'pack_250' | 'pack_500' | 'pack_1000';

/** One price: `interval` makes it a recurring (subscription) price, else a one-time one. */
export interface FakePriceSpec {
  id: string;
  unitAmount: number;
  currency: string;
  interval?: 'month';
}

/** How to start the fake: the account's key and signing secret, its prices, where events go. */
export interface FakeStripeOptions {
  secretKey: string;
  webhookSecret: string;
  /** Where events are POSTed; none delivered while unset. Mutable later through `fake.webhookUrl`. */
  webhookUrl?: string;
  prices: Record<FakePriceItem, FakePriceSpec>;
  /** Failed renewals in a row after which a subscription is deleted (Stripe's retry policy's end). Default 3. */
  failuresBeforeCancel?: number;
  /** Answer as API versions before 2025-03-31: periods on the subscription, `invoice.subscription`, line `price`. */
  legacyShapes?: boolean;
}

/** An API request as the fake read it. */
export interface FakeStripeRequest {
  method: string;
  /** Without the query string. */
  path: string;
  /** The form body (POST) or the query (GET), brackets unfolded into objects and arrays. */
  form: Record<string, any>;
  idempotencyKey: string | null;
}

/** One attempt to deliver an event to the webhook URL. */
export interface FakeStripeDelivery {
  eventId: string;
  type: string;
  /** The receiver's status; null when it could not be reached. */
  status: number | null;
  error: string | null;
}

/** A running fake: its address, what it saw and sent, and the controls a test drives it with. */
export interface FakeStripe {
  url: string;
  /** Mutable: where events go from now on. */
  webhookUrl: string | undefined;
  /** Every event made, in order (delivered or not). */
  events: Array<Record<string, any>>;
  requests: FakeStripeRequest[];
  deliveries: FakeStripeDelivery[];
  /** A copy of any object the fake holds, by id (as the API would answer it), or undefined. */
  object(id: string): Record<string, any> | undefined;
  /**
   * The customer paying on the hosted page. Subscription mode: the subscription (a month from the
   * customer's now), its first invoice (`subscription_create`) and their events. Payment mode: the
   * session paid and complete. `pay: false`: a payment method that settles later (a bank debit):
   * the session is complete but unpaid, a subscription `incomplete` with its first invoice open.
   */
  completeCheckout(sessionId: string, opts?: { pay?: boolean }): Promise<void>;
  /** Renewals (and prorations) of this customer fail from now on, or succeed again. */
  failPayments(customerId: string, on: boolean): void;
  /** A test clock frozen at `frozenTime` (unix seconds; default now); answers its id. */
  createTestClock(frozenTime?: number): string;
  /** Attaches a customer made without `test_clock` to a clock (Stripe allows it only at creation). */
  attachClock(customerId: string, clockId: string): void;
  /** Customers created from now on are attached to this clock (null: none), as `test_clock` would. */
  setDefaultClock(clockId: string | null): void;
  /** Moves the clock to `toUnixSeconds`, renewing every subscription of its customers on the way. */
  advanceClock(clockId: string, toUnixSeconds: number): Promise<void>;
  /** While on, events are still made and kept but never delivered. */
  dropEvents(on: boolean): void;
  /** The next `count` API requests (whose path contains `path`, when given) answer `status` (default 500). */
  failRequests(count: number, opts?: { status?: number; path?: string }): void;
  /** The exact body and headers a delivery of `event` carries (signed now, unless told otherwise). */
  signedDelivery(event: Record<string, any> | string, opts?: { timestamp?: number; secret?: string }): { body: string; headers: Record<string, string> };
  /** Delivers one event again `times` times (concurrently when asked); answers the receiver's statuses. */
  redeliver(eventId: string, opts?: { times?: number; concurrently?: boolean }): Promise<Array<number | null>>;
  /** Resolves once every event made so far has been delivered. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

type Obj = Record<string, any>;

class StripeError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

const API_VERSION = '2026-10-28.endive';
const LEGACY_API_VERSION = '2024-12-18.acacia';
const SUBSCRIPTION_LIVE = new Set(['active', 'trialing', 'past_due', 'unpaid']);

/** The names Stripe's errors use, and the `object` of each. */
const KINDS = {
  price: 'price',
  customer: 'customer',
  'checkout.session': 'checkout.session',
  subscription: 'subscription',
  'subscription schedule': 'subscription_schedule',
  invoice: 'invoice',
  'test clock': 'test_helpers.test_clock',
} as const;

const missing = (what: string, id: string, param = 'id') => new StripeError(404, 'invalid_request_error', `No such ${what}: '${id}'`, 'resource_missing', param);
const invalid = (message: string, param?: string, code?: string) => new StripeError(400, 'invalid_request_error', message, code, param);

function newId(prefix: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return prefix + [...randomBytes(24)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** `a[b][0][c]=v` pairs (form body or query) into nested objects, arrays where every key is an index. */
export function parseStripeForm(text: string): Record<string, any> {
  const root: Obj = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const m = /^([^[\]]+)((?:\[[^\]]*\])*)$/.exec(key);
    if (!m) continue;
    const path = [m[1], ...[...m[2].matchAll(/\[([^\]]*)\]/g)].map((x) => x[1])];
    let node = root;
    path.forEach((seg, i) => {
      const k = seg === '' ? String(Object.keys(node).length) : seg;
      if (i === path.length - 1) node[k] = value;
      else node = node[k] = typeof node[k] === 'object' ? node[k] : {};
    });
  }
  const arrays = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    const entries = Object.entries(v).map(([k, x]) => [k, arrays(x)] as const);
    if (entries.length > 0 && entries.every(([k]) => /^\d+$/.test(k))) return entries.sort((a, b) => Number(a[0]) - Number(b[0])).map(([, x]) => x);
    return Object.fromEntries(entries);
  };
  return arrays(root) as Record<string, any>;
}

/** `n` months after `anchor` (unix seconds), on the anchor's day or the month's last, as Stripe bills. */
function addMonths(anchor: number, n: number): number {
  const d = new Date(anchor * 1000);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return Math.floor(target.getTime() / 1000);
}

function int(name: string, value: unknown): number {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw invalid(`Invalid integer: ${String(value)}`, name);
  return Number(value);
}

function bool(name: string, value: unknown): boolean {
  if (value === 'true' || value === 'false') return value === 'true';
  throw invalid(`Invalid boolean: ${String(value)}`, name);
}

/** Stripe refuses a parameter it does not know (`parameter_unknown`). */
function only(form: Obj, allowed: string[], prefix = ''): void {
  for (const key of Object.keys(form)) {
    if (!allowed.includes(key)) throw invalid(`Received unknown parameter: ${prefix}${key}`, `${prefix}${key}`, 'parameter_unknown');
  }
}

function required(form: Obj, name: string): any {
  if (form[name] === undefined || form[name] === '') throw invalid(`Missing required param: ${name}.`, name, 'parameter_missing');
  return form[name];
}

class StripeFake {
  readonly store = new Map<string, Obj>();
  readonly events: Obj[] = [];
  readonly requests: FakeStripeRequest[] = [];
  readonly deliveries: FakeStripeDelivery[] = [];
  url = '';
  webhookUrl: string | undefined;
  private readonly idempotent = new Map<string, { method: string; path: string; body: string; status: number; answer: string }>();
  private readonly renewals = new Map<string, { anchor: number; periods: number; failures: number }>();
  private readonly sessionData = new Map<string, { priceId: string; subscriptionMetadata: Obj; paymentMetadata: Obj }>();
  private readonly failing = new Set<string>();
  private readonly invoiceCounts = new Map<string, number>();
  private dropping = false;
  private defaultClock: string | null = null;
  private failures: { count: number; status: number; path?: string } | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly opts: FakeStripeOptions) {
    this.webhookUrl = opts.webhookUrl;
    for (const spec of Object.values(opts.prices)) {
      this.store.set(spec.id, {
        id: spec.id,
        object: 'price',
        active: true,
        billing_scheme: 'per_unit',
        created: this.realNow(),
        currency: spec.currency,
        livemode: false,
        lookup_key: null,
        metadata: {},
        nickname: null,
        product: newId('prod_'),
        recurring: spec.interval ? { interval: spec.interval, interval_count: 1, usage_type: 'licensed', meter: null, trial_period_days: null } : null,
        tax_behavior: 'unspecified',
        type: spec.interval ? 'recurring' : 'one_time',
        unit_amount: spec.unitAmount,
        unit_amount_decimal: String(spec.unitAmount),
      });
    }
  }

  realNow(): number {
    return Math.floor(Date.now() / 1000);
  }

  /** The customer's now: its test clock's frozen time, else the real time. */
  nowFor(customerId: string): number {
    const clockId = this.store.get(customerId)?.test_clock as string | null | undefined;
    return clockId ? (this.get(clockId, 'test clock').frozen_time as number) : this.realNow();
  }

  /** The stored object of that kind (`object`), or Stripe's 404 naming it as Stripe does. */
  get(id: string, what: keyof typeof KINDS, param = 'id'): Obj {
    const obj = this.store.get(id);
    if (!obj || obj.object !== KINDS[what]) throw missing(what, id, param);
    return obj;
  }

  /** The object as the API answers it: a copy, in the legacy shape when asked. */
  view(obj: Obj): Obj {
    const copy = structuredClone(obj);
    if (!this.opts.legacyShapes) return copy;
    if (copy.object === 'subscription') {
      const item = copy.items.data[0];
      copy.current_period_start = item?.current_period_start ?? null;
      copy.current_period_end = item?.current_period_end ?? null;
      for (const i of copy.items.data) {
        delete i.current_period_start;
        delete i.current_period_end;
      }
    }
    if (copy.object === 'invoice') {
      copy.subscription = copy.parent?.subscription_details?.subscription ?? null;
      delete copy.parent;
      for (const line of copy.lines.data) {
        const priceId = line.pricing?.price_details?.price as string | undefined;
        line.price = priceId ? structuredClone(this.store.get(priceId)) : null;
        line.proration = line.parent?.subscription_item_details?.proration ?? false;
        delete line.pricing;
        delete line.parent;
      }
    }
    return copy;
  }

  /** Replaces ids named by `expand` paths (`schedule`, `data.schedule`, `latest_invoice`) with their objects. */
  expand(answer: Obj, paths: unknown): Obj {
    const list = Array.isArray(paths) ? paths : paths === undefined ? [] : [paths];
    const walk = (node: any, segs: string[]): any => {
      if (node === null || typeof node !== 'object') return node;
      if (Array.isArray(node)) return node.map((n) => walk(n, segs));
      const [head, ...rest] = segs;
      if (rest.length > 0) node[head] = walk(node[head], rest);
      else if (typeof node[head] === 'string' && this.store.has(node[head])) node[head] = this.view(this.store.get(node[head])!);
      return node;
    };
    for (const p of list) if (typeof p === 'string') walk(answer, p.split('.'));
    return answer;
  }

  // ---- events and deliveries ----

  emit(type: string, obj: Obj, before?: Obj): Obj {
    const object = this.view(obj);
    const data: Obj = { object };
    if (before) {
      const previous: Obj = {};
      for (const [k, v] of Object.entries(before)) if (JSON.stringify(v) !== JSON.stringify(object[k])) previous[k] = v;
      data.previous_attributes = previous;
    }
    const event = {
      id: newId('evt_'),
      object: 'event',
      api_version: this.opts.legacyShapes ? LEGACY_API_VERSION : API_VERSION,
      created: this.realNow(),
      data,
      livemode: false,
      pending_webhooks: this.webhookUrl ? 1 : 0,
      request: { id: null, idempotency_key: null },
      type,
    };
    this.events.push(event);
    if (!this.dropping) this.queue = this.queue.then(() => this.deliver(event).then(() => undefined));
    return event;
  }

  signed(event: Obj, opts: { timestamp?: number; secret?: string } = {}): { body: string; headers: Record<string, string> } {
    const body = JSON.stringify(event, null, 2);
    const t = opts.timestamp ?? this.realNow();
    const v1 = createHmac('sha256', opts.secret ?? this.opts.webhookSecret).update(`${t}.${body}`, 'utf8').digest('hex');
    return { body, headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', 'stripe-signature': `t=${t},v1=${v1}` } };
  }

  async deliver(event: Obj): Promise<number | null> {
    const url = this.webhookUrl;
    if (!url) return null;
    const { body, headers } = this.signed(event);
    const record: FakeStripeDelivery = { eventId: event.id, type: event.type, status: null, error: null };
    this.deliveries.push(record);
    try {
      const res = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(15_000) });
      await res.arrayBuffer();
      record.status = res.status;
    } catch (err) {
      record.error = err instanceof Error ? err.message : String(err);
    }
    return record.status;
  }

  settled(): Promise<void> {
    return this.queue;
  }

  // ---- the HTTP API ----

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const raw = (await readBody(req)).toString('utf8');
    const method = req.method ?? 'GET';
    if (url.pathname.startsWith('/pay/')) return this.hostedPage(method, url.pathname.slice('/pay/'.length), res);
    const form = parseStripeForm(method === 'GET' ? url.search.slice(1) : raw);
    const idempotencyKey = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
    this.requests.push({ method, path: url.pathname, form, idempotencyKey });
    const requestId = newId('req_');
    const send = (status: number, body: string, extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': requestId, 'stripe-version': API_VERSION, ...extra });
      res.end(body);
    };
    const auth = req.headers.authorization;
    if (auth !== `Bearer ${this.opts.secretKey}`) {
      const message = auth
        ? `Invalid API Key provided: ${auth.replace(/^Bearer\s+/, '').slice(0, 8)}********`
        : 'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. \'Authorization: Bearer YOUR_SECRET_KEY\').';
      return send(401, JSON.stringify({ error: { type: 'invalid_request_error', message } }));
    }
    if (this.failures && this.failures.count > 0 && (!this.failures.path || url.pathname.includes(this.failures.path))) {
      this.failures.count -= 1;
      const status = this.failures.status;
      // Stripe asks for no retry of a 500 its idempotency layer would replay anyway.
      return send(status, JSON.stringify({ error: { type: 'api_error', message: 'An unknown error occurred' } }), status === 500 ? { 'stripe-should-retry': 'false' } : {});
    }
    if (method === 'POST' && idempotencyKey) {
      const seen = this.idempotent.get(idempotencyKey);
      if (seen) {
        if (seen.path !== url.pathname || seen.method !== method) {
          return send(400, JSON.stringify({ error: { type: 'idempotency_error', message: 'Keys for idempotent requests can only be used for the same endpoint they were first used for.' } }));
        }
        if (seen.body !== raw) {
          return send(400, JSON.stringify({ error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.` } }));
        }
        return send(seen.status, seen.answer, { 'idempotent-replayed': 'true', 'original-request': requestId });
      }
    }
    let status = 200;
    let answer: string;
    try {
      answer = JSON.stringify(this.expand(this.route(method, url.pathname, form), form.expand), null, 2);
    } catch (err) {
      if (!(err instanceof StripeError)) throw err;
      status = err.status;
      answer = JSON.stringify({ error: { type: err.type, code: err.code, message: err.message, param: err.param } });
    }
    if (method === 'POST' && idempotencyKey && status < 500) this.idempotent.set(idempotencyKey, { method, path: url.pathname, body: raw, status, answer });
    send(status, answer);
  }

  route(method: string, path: string, form: Obj): Obj {
    const parts = path.split('/').filter(Boolean);
    if (parts[0] !== 'v1') throw this.unrecognised(method, path);
    const [, resource, id, action] = parts;
    const key = `${method} ${[resource, id === undefined ? '' : ':id', action ?? ''].filter(Boolean).join('/')}`;
    switch (key) {
      case 'GET prices/:id':
        return this.view(this.get(id, 'price'));
      case 'POST customers':
        return this.createCustomer(form);
      case 'GET customers/:id':
        return this.view(this.get(id, 'customer'));
      case 'GET subscriptions':
        return this.list('/v1/subscriptions', this.subscriptions(form), form);
      case 'GET subscriptions/:id':
        return this.view(this.get(id, 'subscription'));
      case 'POST subscriptions/:id':
        return this.updateSubscription(this.get(id, 'subscription'), form);
      case 'POST subscription_schedules':
        return this.createSchedule(form);
      case 'GET subscription_schedules/:id':
        return this.view(this.get(id, 'subscription schedule'));
      case 'POST subscription_schedules/:id':
        return this.updateSchedule(this.get(id, 'subscription schedule'), form);
      case 'POST subscription_schedules/:id/release':
        return this.releaseSchedule(this.get(id, 'subscription schedule'));
      case 'GET invoices':
        return this.list('/v1/invoices', this.invoices(form), form);
      case 'GET invoices/:id':
        return this.view(this.get(id, 'invoice'));
      case 'GET events/:id':
        return structuredClone(this.events.find((e) => e.id === id) ?? this.fail(missing('event', id)));
    }
    if (resource === 'checkout' && id === 'sessions') {
      if (method === 'POST' && !action) return this.createCheckout(form);
      if (method === 'GET' && action) return this.view(this.get(action, 'checkout.session'));
    }
    if (resource === 'billing_portal' && id === 'sessions' && method === 'POST' && !action) return this.createPortalSession(form);
    if (resource === 'test_helpers' && id === 'test_clocks' && method === 'POST') {
      const clockId = parts[3];
      if (!clockId) return this.view(this.get(this.createClock(int('frozen_time', required(form, 'frozen_time'))), 'test clock'));
      if (parts[4] === 'advance') {
        const clock = this.get(clockId, 'test clock');
        this.advance(clock, int('frozen_time', required(form, 'frozen_time')));
        return this.view(clock);
      }
    }
    throw this.unrecognised(method, path);
  }

  fail(err: StripeError): never {
    throw err;
  }

  unrecognised(method: string, path: string): StripeError {
    return new StripeError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`);
  }

  list(url: string, all: Obj[], form: Obj): Obj {
    const limit = form.limit === undefined ? 10 : int('limit', form.limit);
    if (limit < 1 || limit > 100) throw invalid('This value must be between 1 and 100.', 'limit');
    let from = 0;
    if (form.starting_after !== undefined) {
      const at = all.findIndex((o) => o.id === form.starting_after);
      if (at < 0) throw missing('object', String(form.starting_after), 'starting_after');
      from = at + 1;
    }
    const page = all.slice(from, from + limit);
    return { object: 'list', data: page.map((o) => this.view(o)), has_more: from + limit < all.length, url };
  }

  ofKind(kind: string): Obj[] {
    return [...this.store.values()].filter((o) => o.object === kind);
  }

  /** Newest first, as Stripe lists (ties: the later made first). */
  newestFirst(objs: Obj[]): Obj[] {
    return objs.map((o, i) => [o, i] as const).sort((a, b) => b[0].created - a[0].created || b[1] - a[1]).map(([o]) => o);
  }

  subscriptions(form: Obj): Obj[] {
    only(form, ['customer', 'status', 'limit', 'starting_after', 'expand', 'price']);
    const status = (form.status as string | undefined) ?? 'default';
    return this.newestFirst(
      this.ofKind('subscription').filter(
        (s) =>
          (form.customer === undefined || s.customer === form.customer) &&
          (form.price === undefined || s.items.data.some((i: Obj) => i.price.id === form.price)) &&
          (status === 'all' || (status === 'default' ? !['canceled', 'incomplete_expired'].includes(s.status) : s.status === status)),
      ),
    );
  }

  invoices(form: Obj): Obj[] {
    only(form, ['customer', 'subscription', 'status', 'limit', 'starting_after', 'expand']);
    return this.newestFirst(
      this.ofKind('invoice').filter(
        (i) =>
          (form.customer === undefined || i.customer === form.customer) &&
          (form.subscription === undefined || i.parent?.subscription_details?.subscription === form.subscription) &&
          (form.status === undefined || i.status === form.status),
      ),
    );
  }

  // ---- customers, checkout, portal ----

  createCustomer(form: Obj): Obj {
    only(form, ['name', 'email', 'metadata', 'description', 'test_clock', 'expand']);
    const clock = form.test_clock === undefined ? this.defaultClock : this.get(String(form.test_clock), 'test clock', 'test_clock').id;
    const customer: Obj = {
      id: newId('cus_'),
      object: 'customer',
      address: null,
      balance: 0,
      created: this.realNow(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: form.description ?? null,
      email: form.email ?? null,
      invoice_prefix: randomBytes(4).toString('hex').toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: form.metadata ?? {},
      name: form.name ?? null,
      phone: null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: 'none',
      test_clock: clock,
    };
    this.store.set(customer.id, customer);
    this.emit('customer.created', customer);
    return this.view(customer);
  }

  createCheckout(form: Obj): Obj {
    only(form, ['mode', 'customer', 'client_reference_id', 'line_items', 'metadata', 'subscription_data', 'payment_intent_data', 'success_url', 'cancel_url', 'expand', 'allow_promotion_codes', 'billing_address_collection', 'locale']);
    const mode = required(form, 'mode') as string;
    if (!['subscription', 'payment'].includes(mode)) throw invalid(`Invalid mode: must be one of payment, setup, or subscription`, 'mode');
    if (mode === 'subscription' && form.payment_intent_data !== undefined) throw invalid('You can not pass `payment_intent_data` in `subscription` mode.', 'payment_intent_data');
    if (mode === 'payment' && form.subscription_data !== undefined) throw invalid('You can not pass `subscription_data` in `payment` mode.', 'subscription_data');
    const customer = form.customer === undefined ? null : this.get(String(form.customer), 'customer', 'customer');
    const items = required(form, 'line_items');
    if (!Array.isArray(items) || items.length !== 1) throw invalid('The fake takes exactly one line item.', 'line_items');
    only(items[0], ['price', 'quantity'], 'line_items[0][');
    const price = this.get(String(required(items[0], 'price')), 'price', 'line_items[0][price]');
    const quantity = items[0].quantity === undefined ? 1 : int('line_items[0][quantity]', items[0].quantity);
    if (mode === 'subscription' && !price.recurring) throw invalid('You must provide at least one recurring price in `subscription` mode when using prices.', 'line_items');
    if (mode === 'payment' && price.recurring) throw invalid('You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.', 'line_items');
    const session: Obj = {
      id: newId('cs_test_'),
      object: 'checkout.session',
      amount_subtotal: price.unit_amount * quantity,
      amount_total: price.unit_amount * quantity,
      cancel_url: form.cancel_url ?? null,
      client_reference_id: form.client_reference_id ?? null,
      created: customer ? this.nowFor(customer.id) : this.realNow(),
      currency: price.currency,
      customer: customer?.id ?? null,
      expires_at: this.realNow() + 24 * 3600,
      invoice: null,
      livemode: false,
      metadata: form.metadata ?? {},
      mode,
      payment_intent: null,
      payment_status: 'unpaid',
      status: 'open',
      subscription: null,
      success_url: form.success_url ?? null,
      url: '',
    };
    session.url = `${this.url}/pay/${session.id}`;
    this.store.set(session.id, session);
    this.sessionData.set(session.id, { priceId: price.id, subscriptionMetadata: form.subscription_data?.metadata ?? {}, paymentMetadata: form.payment_intent_data?.metadata ?? {} });
    return this.view(session);
  }

  createPortalSession(form: Obj): Obj {
    only(form, ['customer', 'return_url', 'expand', 'configuration', 'locale']);
    const customer = this.get(String(required(form, 'customer')), 'customer', 'customer');
    const id = newId('bps_');
    return { id, object: 'billing_portal.session', configuration: 'bpc_fake', created: this.realNow(), customer: customer.id, livemode: false, locale: null, return_url: form.return_url ?? null, url: `${this.url}/portal/${id}` };
  }

  /** The hosted page: GET shows it, POST pays (as `completeCheckout`) and redirects to `success_url`. */
  async hostedPage(method: string, id: string, res: ServerResponse): Promise<void> {
    const session = this.store.get(id);
    if (!session || session.object !== 'checkout.session') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('No such checkout session');
      return;
    }
    if (method === 'POST') {
      if (session.status === 'open') await this.completeCheckout(id, true);
      const target = String(session.success_url ?? '/').replace('{CHECKOUT_SESSION_ID}', id);
      res.writeHead(303, { location: target }).end();
      return;
    }
    const amount = `${(session.amount_total / 100).toFixed(2)} ${String(session.currency).toUpperCase()}`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Fake Stripe Checkout</title><h1>Pay ${amount}</h1><p>Session ${id} (${session.mode}, ${session.status})</p><form method="post"><button>Pay</button></form>`);
  }

  // ---- subscriptions and invoices ----

  async completeCheckout(sessionId: string, pay: boolean): Promise<void> {
    const session = this.store.get(sessionId);
    if (!session || session.object !== 'checkout.session') throw new Error(`fake stripe: no checkout session ${sessionId}`);
    if (session.status !== 'open') throw new Error(`fake stripe: checkout session ${sessionId} is ${session.status}`);
    if (!session.customer) session.customer = this.createCustomer({}).id;
    const data = this.sessionData.get(sessionId)!;
    const price = this.get(data.priceId, 'price');
    if (session.mode === 'subscription') {
      const t = this.nowFor(session.customer);
      const sub = this.createSubscription(session.customer, price, data.subscriptionMetadata, t);
      this.emit('customer.subscription.created', sub);
      const invoice = this.createInvoice(sub, 'subscription_create', [this.line(sub, price, price.unit_amount, t, sub.items.data[0].current_period_end, false)], t, t);
      sub.latest_invoice = invoice.id;
      if (pay) {
        this.pay(invoice);
        const before = this.view(sub);
        sub.status = 'active';
        this.emit('customer.subscription.updated', sub, before);
      }
      session.subscription = sub.id;
      session.invoice = invoice.id;
    } else {
      session.payment_intent = newId('pi_');
    }
    session.status = 'complete';
    session.payment_status = pay ? 'paid' : 'unpaid';
    this.emit('checkout.session.completed', session);
    await this.settled();
  }

  createSubscription(customerId: string, price: Obj, metadata: Obj, t: number): Obj {
    const id = newId('sub_');
    const end = addMonths(t, 1);
    const sub: Obj = {
      id,
      object: 'subscription',
      billing_cycle_anchor: t,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      cancellation_details: { comment: null, feedback: null, reason: null },
      collection_method: 'charge_automatically',
      created: t,
      currency: price.currency,
      customer: customerId,
      ended_at: null,
      items: {
        object: 'list',
        data: [{ id: newId('si_'), object: 'subscription_item', created: t, current_period_start: t, current_period_end: end, metadata: {}, price: structuredClone(price), quantity: 1, subscription: id }],
        has_more: false,
        total_count: 1,
        url: `/v1/subscription_items?subscription=${id}`,
      },
      latest_invoice: null,
      livemode: false,
      metadata,
      pending_update: null,
      schedule: null,
      start_date: t,
      status: 'incomplete',
      test_clock: this.store.get(customerId)?.test_clock ?? null,
    };
    this.store.set(id, sub);
    this.renewals.set(id, { anchor: t, periods: 1, failures: 0 });
    return sub;
  }

  line(sub: Obj, price: Obj, amount: number, start: number, end: number, proration: boolean, description?: string): Obj {
    return {
      id: newId('il_'),
      object: 'line_item',
      amount,
      currency: price.currency,
      description: description ?? `1 × ${String(price.id)} (at $${(price.unit_amount / 100).toFixed(2)} / month)`,
      discount_amounts: [],
      discountable: true,
      discounts: [],
      invoice: null,
      livemode: false,
      metadata: {},
      parent: {
        type: 'subscription_item_details',
        invoice_item_details: null,
        subscription_item_details: { invoice_item: null, proration, proration_details: { credited_items: null }, subscription: sub.id, subscription_item: sub.items.data[0].id },
      },
      period: { start, end },
      pretax_credit_amounts: [],
      pricing: { type: 'price_details', price_details: { price: price.id, product: price.product }, unit_amount_decimal: String(price.unit_amount) },
      quantity: 1,
      subscription: sub.id,
      subtotal: amount,
      taxes: [],
    };
  }

  /** A draft invoice, `invoice.created`, then finalized (`invoice.finalized`): open until paid. */
  createInvoice(sub: Obj, reason: string, lines: Obj[], periodStart: number, periodEnd: number): Obj {
    const id = newId('in_');
    const t = this.nowFor(sub.customer);
    const total = lines.reduce((sum, l) => sum + (l.amount as number), 0);
    for (const l of lines) l.invoice = id;
    const invoice: Obj = {
      id,
      object: 'invoice',
      amount_due: Math.max(total, 0),
      amount_paid: 0,
      amount_remaining: Math.max(total, 0),
      attempt_count: 0,
      attempted: false,
      billing_reason: reason,
      collection_method: 'charge_automatically',
      created: t,
      currency: sub.currency,
      customer: sub.customer,
      hosted_invoice_url: null,
      invoice_pdf: null,
      lines: { object: 'list', data: lines, has_more: false, total_count: lines.length, url: `/v1/invoices/${id}/lines` },
      livemode: false,
      metadata: {},
      number: null,
      parent: { type: 'subscription_details', quote_details: null, subscription_details: { metadata: structuredClone(sub.metadata), subscription: sub.id } },
      period_end: periodEnd,
      period_start: periodStart,
      status: 'draft',
      status_transitions: { finalized_at: null, marked_uncollectible_at: null, paid_at: null, voided_at: null },
      subtotal: total,
      test_clock: sub.test_clock,
      total,
    };
    this.store.set(id, invoice);
    this.emit('invoice.created', invoice);
    const count = (this.invoiceCounts.get(sub.customer) ?? 0) + 1;
    this.invoiceCounts.set(sub.customer, count);
    invoice.number = `${String(this.store.get(sub.customer)?.invoice_prefix ?? 'FAKE')}-${String(count).padStart(4, '0')}`;
    invoice.status = 'open';
    invoice.hosted_invoice_url = `${this.url}/invoice/${id}`;
    invoice.invoice_pdf = `${this.url}/invoice/${id}/pdf`;
    invoice.status_transitions.finalized_at = t;
    this.emit('invoice.finalized', invoice);
    return invoice;
  }

  /** Charges an open invoice: paid, or (the customer's payments failing) `invoice.payment_failed`; answers whether it was paid. */
  charge(invoice: Obj): boolean {
    if (invoice.total <= 0) {
      this.pay(invoice);
      return true;
    }
    invoice.attempt_count += 1;
    invoice.attempted = true;
    if (this.failing.has(invoice.customer)) {
      this.emit('invoice.payment_failed', invoice);
      return false;
    }
    this.pay(invoice);
    return true;
  }

  pay(invoice: Obj): void {
    invoice.status = 'paid';
    invoice.attempted = true;
    invoice.amount_paid = invoice.amount_due;
    invoice.amount_remaining = 0;
    invoice.status_transitions.paid_at = this.nowFor(invoice.customer);
    this.emit('invoice.paid', invoice);
    this.emit('invoice.payment_succeeded', invoice);
  }

  updateSubscription(sub: Obj, form: Obj): Obj {
    only(form, ['items', 'proration_behavior', 'payment_behavior', 'cancel_at_period_end', 'metadata', 'expand', 'proration_date']);
    if (sub.status === 'canceled' || sub.status === 'incomplete_expired') throw invalid(`A canceled subscription can only update its cancellation_details and metadata.`);
    if (sub.schedule && form.cancel_at_period_end !== undefined) {
      throw invalid(`The subscription is managed by the subscription schedule \`${String(sub.schedule)}\`, and updating any cancelation behavior directly is not allowed. Please update the schedule instead.`);
    }
    if (sub.schedule && form.items !== undefined) {
      throw invalid(`The subscription is managed by the subscription schedule \`${String(sub.schedule)}\`, and updating its items directly is not allowed. Please update the schedule, or release it first.`);
    }
    const before = this.view(sub);
    const t = this.nowFor(sub.customer);
    if (form.metadata !== undefined) sub.metadata = { ...sub.metadata, ...form.metadata };
    if (form.cancel_at_period_end !== undefined) {
      sub.cancel_at_period_end = bool('cancel_at_period_end', form.cancel_at_period_end);
      sub.cancel_at = sub.cancel_at_period_end ? sub.items.data[0].current_period_end : null;
      sub.canceled_at = sub.cancel_at_period_end ? t : null;
      sub.cancellation_details = { comment: null, feedback: null, reason: sub.cancel_at_period_end ? 'cancellation_requested' : null };
    }
    if (form.items !== undefined) {
      if (!Array.isArray(form.items) || form.items.length !== 1) throw invalid('The fake changes exactly one item.', 'items');
      const change = form.items[0];
      only(change, ['id', 'price', 'quantity'], 'items[0][');
      const item = sub.items.data[0];
      if (change.id !== item.id) throw missing('subscription item', String(change.id), 'items[0][id]');
      const price = change.price === undefined ? item.price : this.get(String(change.price), 'price', 'items[0][price]');
      if (!price.recurring) throw invalid('The price specified is not recurring.', 'items[0][price]');
      const behavior = (form.proration_behavior as string | undefined) ?? 'create_prorations';
      if (!['always_invoice', 'create_prorations', 'none'].includes(behavior)) throw invalid('Invalid proration_behavior', 'proration_behavior');
      if (price.id !== item.price.id) {
        const { current_period_start: start, current_period_end: end } = item;
        if (behavior === 'always_invoice') {
          const left = Math.max(0, end - t) / (end - start);
          const when = new Date(t * 1000).toISOString().slice(0, 10);
          const invoice = this.createInvoice(
            sub,
            'subscription_update',
            [
              this.line(sub, item.price, -Math.round(item.price.unit_amount * left), t, end, true, `Unused time on ${String(item.price.id)} after ${when}`),
              this.line(sub, price, Math.round(price.unit_amount * left), t, end, true, `Remaining time on ${String(price.id)} after ${when}`),
            ],
            t,
            t,
          );
          const paid = this.charge(invoice);
          if (!paid && form.payment_behavior === 'pending_if_incomplete') {
            sub.pending_update = { billing_cycle_anchor: null, expires_at: t + 23 * 3600, subscription_items: [{ id: item.id, price: structuredClone(price), quantity: 1 }], trial_end: null, trial_from_plan: null };
          } else {
            item.price = structuredClone(price);
            if (!paid) sub.status = 'past_due';
          }
          sub.latest_invoice = invoice.id;
        } else {
          item.price = structuredClone(price);
        }
      }
    }
    this.emit('customer.subscription.updated', sub, before);
    return this.view(sub);
  }

  createSchedule(form: Obj): Obj {
    only(form, ['from_subscription', 'expand']);
    const sub = this.get(String(required(form, 'from_subscription')), 'subscription', 'from_subscription');
    if (sub.schedule) throw invalid(`You cannot migrate a subscription that is already attached to a schedule: \`${String(sub.schedule)}\`.`, 'from_subscription');
    if (!SUBSCRIPTION_LIVE.has(sub.status)) throw invalid(`You cannot migrate a subscription in status ${String(sub.status)} to a schedule.`, 'from_subscription');
    const item = sub.items.data[0];
    const phase = this.phase(item.price, item.current_period_start, item.current_period_end);
    const schedule: Obj = {
      id: newId('sub_sched_'),
      object: 'subscription_schedule',
      canceled_at: null,
      completed_at: null,
      created: this.nowFor(sub.customer),
      current_phase: { start_date: phase.start_date, end_date: phase.end_date },
      customer: sub.customer,
      default_settings: { collection_method: 'charge_automatically' },
      end_behavior: 'release',
      livemode: false,
      metadata: {},
      phases: [phase],
      released_at: null,
      released_subscription: null,
      status: 'active',
      subscription: sub.id,
      test_clock: sub.test_clock,
    };
    this.store.set(schedule.id, schedule);
    const before = this.view(sub);
    sub.schedule = schedule.id;
    this.emit('subscription_schedule.created', schedule);
    this.emit('customer.subscription.updated', sub, before);
    return this.view(schedule);
  }

  phase(price: Obj, start: number, end: number): Obj {
    return {
      add_invoice_items: [],
      billing_cycle_anchor: null,
      currency: price.currency,
      end_date: end,
      items: [{ metadata: {}, price: price.id, quantity: 1 }],
      metadata: {},
      proration_behavior: 'create_prorations',
      start_date: start,
      trial_end: null,
    };
  }

  updateSchedule(schedule: Obj, form: Obj): Obj {
    only(form, ['end_behavior', 'phases', 'proration_behavior', 'metadata', 'expand']);
    if (schedule.status !== 'active' && schedule.status !== 'not_started') {
      throw invalid(`You cannot update a subscription schedule that is currently in the \`${String(schedule.status)}\` status. It must be in one of the following statuses: \`not_started\`, \`active\`.`);
    }
    if (form.end_behavior !== undefined) {
      if (!['release', 'cancel'].includes(form.end_behavior)) throw invalid('Invalid end_behavior', 'end_behavior');
      schedule.end_behavior = form.end_behavior;
    }
    if (form.metadata !== undefined) schedule.metadata = { ...schedule.metadata, ...form.metadata };
    if (form.phases !== undefined) {
      if (!Array.isArray(form.phases) || form.phases.length === 0) throw invalid('Invalid array', 'phases');
      const phases: Obj[] = [];
      form.phases.forEach((p: Obj, i: number) => {
        const at = `phases[${i}]`;
        only(p, ['items', 'start_date', 'end_date', 'duration', 'proration_behavior', 'metadata'], `${at}[`);
        const items = p.items;
        if (!Array.isArray(items) || items.length !== 1) throw invalid('The fake takes exactly one item per phase.', `${at}[items]`);
        only(items[0], ['price', 'quantity'], `${at}[items][0][`);
        const price = this.get(String(required(items[0], 'price')), 'price', `${at}[items][0][price]`);
        const previousEnd = phases[i - 1]?.end_date as number | undefined;
        const start = p.start_date === undefined ? (previousEnd ?? schedule.current_phase?.start_date) : int(`${at}[start_date]`, p.start_date);
        if (i === 0 && schedule.current_phase && start !== schedule.current_phase.start_date) throw invalid('You can not modify the start date of the current phase.', `${at}[start_date]`);
        if (previousEnd !== undefined && start !== previousEnd) throw invalid(`The start_date of phase ${i} must be the end_date of the phase before it.`, `${at}[start_date]`);
        if (p.end_date !== undefined && p.duration !== undefined) throw invalid('You may only specify one of these parameters: duration, end_date.', `${at}[duration]`);
        let end: number;
        if (p.end_date !== undefined) end = int(`${at}[end_date]`, p.end_date);
        else if (p.duration !== undefined) {
          only(p.duration, ['interval', 'interval_count'], `${at}[duration][`);
          if (required(p.duration, 'interval') !== 'month') throw invalid('The fake schedules phases in months.', `${at}[duration][interval]`);
          end = addMonths(start, p.duration.interval_count === undefined ? 1 : int(`${at}[duration][interval_count]`, p.duration.interval_count));
        } else if (i === form.phases.length - 1) end = addMonths(start, 1);
        else throw invalid(`Missing required param: ${at}[end_date].`, `${at}[end_date]`, 'parameter_missing');
        if (end <= start) throw invalid('The end_date of a phase must be after its start_date.', `${at}[end_date]`);
        const phase = this.phase(price, start, end);
        if (p.proration_behavior !== undefined) phase.proration_behavior = p.proration_behavior;
        phases.push(phase);
      });
      schedule.phases = phases;
    }
    this.emit('subscription_schedule.updated', schedule);
    return this.view(schedule);
  }

  releaseSchedule(schedule: Obj): Obj {
    if (schedule.status !== 'active' && schedule.status !== 'not_started') {
      throw invalid(`You cannot release a subscription schedule that is currently in the \`${String(schedule.status)}\` status. It must be in one of the following statuses: \`not_started\`, \`active\`.`);
    }
    this.detach(schedule, 'released');
    return this.view(schedule);
  }

  /** Ends a schedule (`released`, or `canceled` with its subscription) and frees its subscription. */
  detach(schedule: Obj, status: 'released' | 'canceled'): void {
    const sub = schedule.subscription ? this.store.get(schedule.subscription) : undefined;
    const t = sub ? this.nowFor(sub.customer) : this.realNow();
    schedule.status = status;
    if (status === 'released') {
      schedule.released_at = t;
      schedule.released_subscription = schedule.subscription;
    } else schedule.canceled_at = t;
    schedule.subscription = null;
    schedule.current_phase = null;
    this.emit(`subscription_schedule.${status}`, schedule);
    if (sub && sub.status !== 'canceled') {
      const before = this.view(sub);
      sub.schedule = null;
      this.emit('customer.subscription.updated', sub, before);
    } else if (sub) sub.schedule = null;
  }

  // ---- test clocks and renewals ----

  createClock(frozenTime: number): string {
    const clock = { id: newId('clock_'), object: 'test_helpers.test_clock', created: this.realNow(), deletes_after: this.realNow() + 30 * 86_400, frozen_time: frozenTime, livemode: false, name: null, status: 'ready' };
    this.store.set(clock.id, clock);
    return clock.id;
  }

  advance(clock: Obj, to: number): void {
    if (to <= clock.frozen_time) throw invalid('The frozen_time must be after the current frozen_time of the test clock.', 'frozen_time');
    const customers = new Set(this.ofKind('customer').filter((c) => c.test_clock === clock.id).map((c) => c.id));
    for (;;) {
      const due = this.ofKind('subscription')
        .filter((s) => customers.has(s.customer) && SUBSCRIPTION_LIVE.has(s.status) && s.items.data[0].current_period_end <= to)
        .sort((a, b) => a.items.data[0].current_period_end - b.items.data[0].current_period_end)[0];
      if (!due) break;
      clock.frozen_time = due.items.data[0].current_period_end;
      this.renew(due);
    }
    clock.frozen_time = to;
  }

  /** The subscription at its period's end: canceled, or the next period (a due phase applied) invoiced and charged. */
  renew(sub: Obj): void {
    const item = sub.items.data[0];
    const t = item.current_period_end as number;
    const state = this.renewals.get(sub.id)!;
    const before = this.view(sub);
    const schedule = sub.schedule ? this.store.get(sub.schedule) : undefined;
    if (sub.cancel_at_period_end || (schedule && schedule.end_behavior === 'cancel' && t >= schedule.phases.at(-1).end_date)) {
      this.end(sub, t, 'cancellation_requested');
      return;
    }
    if (schedule) {
      const phase = schedule.phases.find((p: Obj) => p.start_date <= t && t < p.end_date);
      if (phase) {
        item.price = structuredClone(this.get(phase.items[0].price, 'price'));
        schedule.current_phase = { start_date: phase.start_date, end_date: phase.end_date };
      } else this.detach(schedule, 'released');
    }
    const previousStart = item.current_period_start as number;
    state.periods += 1;
    item.current_period_start = t;
    item.current_period_end = addMonths(state.anchor, state.periods);
    this.emit('customer.subscription.updated', sub, before);
    // Stripe's renewal invoice carries the period that ended at invoice level; its line, the new one.
    const invoice = this.createInvoice(sub, 'subscription_cycle', [this.line(sub, item.price, item.price.unit_amount, t, item.current_period_end, false)], previousStart, t);
    sub.latest_invoice = invoice.id;
    const afterPeriod = this.view(sub);
    if (this.charge(invoice)) {
      state.failures = 0;
      if (sub.status !== 'past_due') return;
      sub.status = 'active';
      this.emit('customer.subscription.updated', sub, afterPeriod);
      return;
    }
    state.failures += 1;
    if (state.failures >= (this.opts.failuresBeforeCancel ?? 3)) {
      this.end(sub, t, 'payment_failed');
      return;
    }
    if (sub.status === 'past_due') return;
    sub.status = 'past_due';
    this.emit('customer.subscription.updated', sub, afterPeriod);
  }

  end(sub: Obj, t: number, reason: string): void {
    const schedule = sub.schedule ? this.store.get(sub.schedule) : undefined;
    sub.status = 'canceled';
    sub.ended_at = t;
    sub.canceled_at = sub.canceled_at ?? t;
    sub.cancellation_details = { comment: null, feedback: null, reason };
    if (schedule) this.detach(schedule, 'canceled');
    this.emit('customer.subscription.deleted', sub);
  }

  // ---- test controls ----

  controls(): Omit<FakeStripe, 'url' | 'webhookUrl' | 'events' | 'requests' | 'deliveries' | 'close'> {
    return {
      object: (id) => {
        const obj = this.store.get(id);
        return obj ? this.view(obj) : undefined;
      },
      completeCheckout: (sessionId, opts = {}) => this.completeCheckout(sessionId, opts.pay ?? true),
      failPayments: (customerId, on) => {
        this.get(customerId, 'customer');
        if (on) this.failing.add(customerId);
        else this.failing.delete(customerId);
      },
      createTestClock: (frozenTime) => this.createClock(frozenTime ?? this.realNow()),
      attachClock: (customerId, clockId) => {
        this.get(clockId, 'test clock');
        this.get(customerId, 'customer').test_clock = clockId;
      },
      setDefaultClock: (clockId) => {
        if (clockId) this.get(clockId, 'test clock');
        this.defaultClock = clockId;
      },
      advanceClock: async (clockId, to) => {
        this.advance(this.get(clockId, 'test clock'), to);
        await this.settled();
      },
      dropEvents: (on) => {
        this.dropping = on;
      },
      failRequests: (count, opts = {}) => {
        this.failures = { count, status: opts.status ?? 500, path: opts.path };
      },
      signedDelivery: (event, opts) => {
        const found = typeof event === 'string' ? this.events.find((e) => e.id === event) : event;
        if (!found) throw new Error(`fake stripe: no event ${typeof event === 'string' ? event : 'given'}`);
        return this.signed(found, opts);
      },
      redeliver: async (eventId, opts = {}) => {
        const event = this.events.find((e) => e.id === eventId);
        if (!event) throw new Error(`fake stripe: no event ${eventId}`);
        await this.settled();
        const times = opts.times ?? 1;
        if (opts.concurrently) return Promise.all(Array.from({ length: times }, () => this.deliver(event)));
        const statuses: Array<number | null> = [];
        for (let i = 0; i < times; i++) statuses.push(await this.deliver(event));
        return statuses;
      },
      settled: () => this.settled(),
    };
  }
}

/** Starts the fake on 127.0.0.1 at a free port. */
export async function startFakeStripe(opts: FakeStripeOptions): Promise<FakeStripe> {
  const fake = new StripeFake(opts);
  const server: Server = createServer((req, res) => {
    fake.handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'api_error', message: `fake stripe: ${String(err)}` } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handle: FakeStripe = {
    url: fake.url,
    get webhookUrl() {
      return fake.webhookUrl;
    },
    set webhookUrl(url: string | undefined) {
      fake.webhookUrl = url;
    },
    events: fake.events,
    requests: fake.requests,
    deliveries: fake.deliveries,
    ...fake.controls(),
    close: async () => {
      await fake.settled();
      await new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      });
    },
  };
  return handle;
}
