import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startFakeStripe, type FakeStripe } from '../../../../test/fakes/stripe-server.js';
import { STRIPE_TEST_KEY, STRIPE_TEST_WEBHOOK_SECRET, TEST_PRICES } from '../../../../test/helpers/stripe.js';
import { InvalidEventSignature, PaymentProviderUnavailable, type RemoteSubscription } from '../application/ports/payment-gateway.js';
import type { StripeSettings } from '../billing.settings.js';
import type { PaidPlan } from '../domain/catalogue.js';
import { StripeGateway } from './stripe-gateway.js';

const APP_URL = 'https://studio.example.test';
const DAY = 86_400;
const ids = Object.fromEntries(Object.entries(TEST_PRICES).map(([item, p]) => [item, p.id])) as StripeSettings['prices'];

let fake: FakeStripe;
let nowMs: number;
let gateway: StripeGateway;

function settings(base: string, over: Partial<StripeSettings> = {}): StripeSettings {
  return { secretKey: STRIPE_TEST_KEY, webhookSecret: STRIPE_TEST_WEBHOOK_SECRET, apiBase: new URL(base), prices: ids, ...over };
}

beforeAll(async () => {
  fake = await startFakeStripe({ secretKey: STRIPE_TEST_KEY, webhookSecret: STRIPE_TEST_WEBHOOK_SECRET, prices: TEST_PRICES });
});
afterAll(() => fake.close());
beforeEach(() => {
  nowMs = Date.now();
  gateway = new StripeGateway(settings(fake.url), { appUrl: APP_URL }, () => nowMs);
  fake.requests.length = 0;
});

const requestsTo = (method: string, path: string) => fake.requests.filter((r) => r.method === method && r.path.startsWith(path));

async function customer(opts: { clock?: boolean } = {}): Promise<{ workspaceId: string; customerId: string; clockId: string | null }> {
  const workspaceId = `ws_${randomUUID()}`;
  const customerId = await gateway.createCustomer({ workspaceId, name: 'Tomato Studio', email: 'owner@tomato.test' });
  const clockId = opts.clock ? fake.createTestClock() : null;
  if (clockId) fake.attachClock(customerId, clockId);
  return { workspaceId, customerId, clockId };
}

/** A customer who went through Checkout for `plan` and paid. */
async function subscribed(plan: PaidPlan, opts: { clock?: boolean } = {}) {
  const who = await customer(opts);
  const checkout = await gateway.startCheckout({ kind: 'subscription', workspaceId: who.workspaceId, customerId: who.customerId, plan, successUrl: '/billing?checkout=done', cancelUrl: '/billing' });
  await fake.completeCheckout(checkout.id);
  const subscriptionId = fake.object(checkout.id)!.subscription as string;
  const sub = (await gateway.getSubscription(subscriptionId))!;
  return { ...who, sessionId: checkout.id, subscriptionId, sub };
}

function periodEnd(sub: RemoteSubscription): number {
  return sub.currentPeriodEnd.getTime() / 1000;
}

describe('StripeGateway against the fake Stripe (real SDK, real HTTP)', () => {
  it('maps the six configured prices and keeps them 10 minutes', async () => {
    const prices = await gateway.prices();
    expect(prices.plans).toEqual({
      pro: { id: TEST_PRICES.pro.id, unitAmount: 2900, currency: 'usd', interval: 'month' },
      agency: { id: TEST_PRICES.agency.id, unitAmount: 9900, currency: 'usd', interval: 'month' },
    });
    expect(prices.packs.pack_100).toEqual({ id: TEST_PRICES.pack_100.id, unitAmount: 900, currency: 'usd', interval: null });
    expect(Object.values(prices.packs).map((p) => p.unitAmount)).toEqual([900, 2000, 3500, 6000]);
    expect(requestsTo('GET', '/v1/prices/')).toHaveLength(6);

    nowMs += 9 * 60_000;
    await gateway.prices();
    expect(requestsTo('GET', '/v1/prices/')).toHaveLength(6);
    nowMs += 61_000;
    await gateway.prices();
    expect(requestsTo('GET', '/v1/prices/')).toHaveLength(12);
  });

  it('refuses a misconfigured price (a pack id where a plan belongs)', async () => {
    const wrong = new StripeGateway(settings(fake.url, { prices: { ...ids, pro: TEST_PRICES.pack_100.id } }), { appUrl: APP_URL });
    await expect(wrong.prices()).rejects.toThrow(PaymentProviderUnavailable);
  });

  it('creates one customer for two calls with the same workspace (idempotency key)', async () => {
    const workspaceId = `ws_${randomUUID()}`;
    const first = await gateway.createCustomer({ workspaceId, name: 'Tomato Studio', email: 'owner@tomato.test' });
    const second = await gateway.createCustomer({ workspaceId, name: 'Tomato Studio', email: 'owner@tomato.test' });
    expect(second).toBe(first);
    expect(first).toMatch(/^cus_/);
    const created = fake.events.filter((e) => e.type === 'customer.created' && e.data.object.metadata.workspace_id === workspaceId);
    expect(created).toHaveLength(1);
    const posts = requestsTo('POST', '/v1/customers');
    expect(posts.map((r) => r.idempotencyKey)).toEqual([`customer-${workspaceId}`, `customer-${workspaceId}`]);
    expect(posts[0].form).toEqual({ name: 'Tomato Studio', email: 'owner@tomato.test', metadata: { workspace_id: workspaceId } });
    expect(fake.object(first)).toMatchObject({ name: 'Tomato Studio', email: 'owner@tomato.test' });
  });

  it('starts subscription and pack checkouts carrying the workspace (client_reference_id and metadata)', async () => {
    const { workspaceId, customerId } = await customer();
    const sub = await gateway.startCheckout({ kind: 'subscription', workspaceId, customerId, plan: 'pro', successUrl: '/billing?checkout=done', cancelUrl: `${APP_URL}/billing` });
    expect(sub.id).toMatch(/^cs_test_/);
    expect(sub.url).toBe(`${fake.url}/pay/${sub.id}`);
    const pack = await gateway.startCheckout({ kind: 'pack', workspaceId, customerId, pack: 'pack_500', successUrl: '/credits', cancelUrl: '/credits' });

    const [subForm, packForm] = requestsTo('POST', '/v1/checkout/sessions').map((r) => r.form);
    expect(subForm).toEqual({
      mode: 'subscription',
      customer: customerId,
      client_reference_id: workspaceId,
      line_items: [{ price: TEST_PRICES.pro.id, quantity: '1' }],
      subscription_data: { metadata: { workspace_id: workspaceId } },
      metadata: { workspace_id: workspaceId },
      success_url: `${APP_URL}/billing?checkout=done`,
      cancel_url: `${APP_URL}/billing`,
    });
    expect(packForm).toEqual({
      mode: 'payment',
      customer: customerId,
      client_reference_id: workspaceId,
      line_items: [{ price: TEST_PRICES.pack_500.id, quantity: '1' }],
      metadata: { workspace_id: workspaceId, pack: 'pack_500' },
      payment_intent_data: { metadata: { workspace_id: workspaceId, pack: 'pack_500' } },
      success_url: `${APP_URL}/credits`,
      cancel_url: `${APP_URL}/credits`,
    });
    expect(await gateway.getCheckout(pack.id)).toEqual({
      id: pack.id,
      workspaceId,
      customerId,
      mode: 'payment',
      complete: false,
      paid: false,
      subscriptionId: null,
      pack: 'pack_500',
    });
  });

  it('opens the customer portal', async () => {
    const { customerId } = await customer();
    const portal = await gateway.openPortal(customerId, '/billing');
    expect(portal.url).toMatch(new RegExp(`^${fake.url}/portal/bps_`));
    expect(requestsTo('POST', '/v1/billing_portal/sessions')[0].form).toEqual({ customer: customerId, return_url: `${APP_URL}/billing` });
  });

  it('maps a paid subscription checkout, its subscription (periods from the item) and its first invoice', async () => {
    const { workspaceId, customerId, sessionId, subscriptionId, sub } = await subscribed('pro');
    expect(await gateway.getCheckout(sessionId)).toEqual({
      id: sessionId,
      workspaceId,
      customerId,
      mode: 'subscription',
      complete: true,
      paid: true,
      subscriptionId,
      pack: null,
    });
    const item = fake.object(subscriptionId)!.items.data[0];
    expect(fake.object(subscriptionId)!.current_period_end).toBeUndefined();
    expect(sub).toEqual({
      id: subscriptionId,
      customerId,
      workspaceId,
      plan: 'pro',
      status: 'active',
      currentPeriodStart: new Date(item.current_period_start * 1000),
      currentPeriodEnd: new Date(item.current_period_end * 1000),
      cancelAtPeriodEnd: false,
      pendingPlan: null,
      itemId: item.id,
    });
    expect(periodEnd(sub) - item.current_period_start).toBeGreaterThanOrEqual(28 * DAY);

    const invoiceId = fake.object(sessionId)!.invoice as string;
    const invoice = await gateway.getInvoice(invoiceId);
    expect(invoice).toMatchObject({
      id: invoiceId,
      customerId,
      subscriptionId,
      status: 'paid',
      reason: 'subscription_create',
      amount: 2900,
      currency: 'usd',
      plan: 'pro',
      periodStart: sub.currentPeriodStart,
      periodEnd: sub.currentPeriodEnd,
    });
    expect(invoice!.number).toMatch(/^[0-9A-F]{8}-0001$/);
    expect(invoice!.hostedUrl).toContain(invoiceId);
  });

  it('maps a paid pack checkout, and a checkout completed but not yet paid', async () => {
    const { workspaceId, customerId } = await customer();
    const pack = await gateway.startCheckout({ kind: 'pack', workspaceId, customerId, pack: 'pack_250', successUrl: '/credits', cancelUrl: '/credits' });
    await fake.completeCheckout(pack.id);
    expect(await gateway.getCheckout(pack.id)).toMatchObject({ mode: 'payment', complete: true, paid: true, pack: 'pack_250', subscriptionId: null });

    const sub = await gateway.startCheckout({ kind: 'subscription', workspaceId, customerId, plan: 'agency', successUrl: '/b', cancelUrl: '/b' });
    await fake.completeCheckout(sub.id, { pay: false });
    const checkout = await gateway.getCheckout(sub.id);
    expect(checkout).toMatchObject({ complete: true, paid: false });
    expect(await gateway.getSubscription(checkout!.subscriptionId!)).toMatchObject({ plan: 'agency', status: 'incomplete' });
  });

  it('takes a renewal invoice period and plan from its subscription line, not the invoice-level period', async () => {
    const { customerId, clockId, sub } = await subscribed('pro', { clock: true });
    await fake.advanceClock(clockId!, periodEnd(sub) + 3600);
    const { items } = await gateway.listInvoices(customerId, { limit: 1 });
    const renewal = items[0];
    const raw = fake.object(renewal.id)!;
    expect(renewal).toMatchObject({ reason: 'subscription_cycle', status: 'paid', plan: 'pro', amount: 2900, periodStart: sub.currentPeriodEnd });
    // Stripe's invoice-level period of a renewal is the one that just ended.
    expect(raw.period_end).toBe(periodEnd(sub));
    expect(renewal.periodEnd.getTime()).toBeGreaterThan(sub.currentPeriodEnd.getTime() + 27 * DAY * 1000);
    const renewed = await gateway.getSubscription(sub.id);
    expect(renewed!.currentPeriodStart).toEqual(sub.currentPeriodEnd);
    expect(renewed!.currentPeriodEnd).toEqual(renewal.periodEnd);
  });

  it('upgrades at once with a prorated subscription_update invoice', async () => {
    const { customerId, sub } = await subscribed('pro');
    const upgraded = await gateway.upgrade(sub, 'agency');
    expect(upgraded).toMatchObject({ id: sub.id, plan: 'agency', status: 'active', pendingPlan: null, currentPeriodEnd: sub.currentPeriodEnd });
    const update = requestsTo('POST', `/v1/subscriptions/${sub.id}`)[0].form;
    expect(update).toMatchObject({
      items: [{ id: sub.itemId, price: TEST_PRICES.agency.id }],
      proration_behavior: 'always_invoice',
      payment_behavior: 'pending_if_incomplete',
    });
    const { items } = await gateway.listInvoices(customerId, { limit: 10 });
    expect(items.map((i) => i.reason)).toEqual(['subscription_update', 'subscription_create']);
    const proration = items[0];
    // Nearly the whole period is left: about $99 - $29.
    expect(proration.amount).toBeGreaterThan(6900 - 50);
    expect(proration.amount).toBeLessThanOrEqual(7000);
    expect(proration).toMatchObject({ status: 'paid', plan: 'agency', subscriptionId: sub.id, periodEnd: sub.currentPeriodEnd });
  });

  it('leaves the plan as it was when the proration cannot be paid (pending_if_incomplete)', async () => {
    const { customerId, sub } = await subscribed('pro');
    fake.failPayments(customerId, true);
    const after = await gateway.upgrade(sub, 'agency');
    expect(after.plan).toBe('pro');
    expect((await gateway.listInvoices(customerId, { limit: 1 })).items[0]).toMatchObject({ reason: 'subscription_update', status: 'open' });
  });

  it('schedules a downgrade for the period end: pendingPlan now, the new plan after the clock passes it', async () => {
    const { customerId, clockId, sub } = await subscribed('agency', { clock: true });
    const scheduled = await gateway.scheduleDowngrade(sub, 'pro');
    expect(scheduled).toMatchObject({ plan: 'agency', pendingPlan: 'pro', status: 'active' });
    expect(await gateway.getSubscription(sub.id)).toEqual(scheduled);
    expect(await gateway.findSubscription(customerId)).toEqual(scheduled);

    const scheduleId = fake.object(sub.id)!.schedule as string;
    const update = requestsTo('POST', `/v1/subscription_schedules/${scheduleId}`)[0].form;
    expect(update).toEqual({
      end_behavior: 'release',
      proration_behavior: 'none',
      phases: [
        { items: [{ price: TEST_PRICES.agency.id, quantity: '1' }], start_date: String(sub.currentPeriodStart.getTime() / 1000), end_date: String(periodEnd(sub)) },
        { items: [{ price: TEST_PRICES.pro.id, quantity: '1' }], start_date: String(periodEnd(sub)), duration: { interval: 'month', interval_count: '1' } },
      ],
    });

    await fake.advanceClock(clockId!, periodEnd(sub) + 60);
    const downgraded = await gateway.getSubscription(sub.id);
    expect(downgraded).toMatchObject({ plan: 'pro', pendingPlan: null, currentPeriodStart: sub.currentPeriodEnd });
    expect((await gateway.listInvoices(customerId, { limit: 1 })).items[0]).toMatchObject({ reason: 'subscription_cycle', plan: 'pro', amount: 2900 });

    // The phase ends a month later and the schedule lets the subscription go, on its new plan.
    await fake.advanceClock(clockId!, periodEnd(downgraded!) + 60);
    expect(fake.object(scheduleId)!.status).toBe('released');
    expect(await gateway.getSubscription(sub.id)).toMatchObject({ plan: 'pro', pendingPlan: null });
  });

  it('drops a scheduled downgrade on cancelScheduledChange, and on an upgrade', async () => {
    const { sub } = await subscribed('agency');
    await gateway.scheduleDowngrade(sub, 'pro');
    const first = fake.object(sub.id)!.schedule as string;
    const kept = await gateway.cancelScheduledChange(sub);
    expect(kept).toMatchObject({ plan: 'agency', pendingPlan: null });
    expect(fake.object(first)!.status).toBe('released');

    // A second downgrade makes a new schedule; keeping Agency over it (an upgrade from the pending Pro) releases it too.
    expect(await gateway.scheduleDowngrade(kept, 'pro')).toMatchObject({ pendingPlan: 'pro' });
    const second = fake.object(sub.id)!.schedule as string;
    expect(second).not.toBe(first);
    expect(await gateway.upgrade(kept, 'agency')).toMatchObject({ plan: 'agency', pendingPlan: null });
    expect(fake.object(second)!.status).toBe('released');
  });

  it('cancels at the period end and resumes; a cancellation that runs out ends the subscription', async () => {
    const { customerId, clockId, sub } = await subscribed('pro', { clock: true });
    expect(await gateway.setCancelAtPeriodEnd(sub, true)).toMatchObject({ cancelAtPeriodEnd: true, status: 'active' });
    expect(await gateway.setCancelAtPeriodEnd(sub, false)).toMatchObject({ cancelAtPeriodEnd: false, status: 'active' });

    // Cancelling over a scheduled downgrade releases the schedule first (Stripe refuses otherwise).
    await gateway.scheduleDowngrade(sub, 'pro');
    const cancelling = await gateway.setCancelAtPeriodEnd(sub, true);
    expect(cancelling).toMatchObject({ cancelAtPeriodEnd: true, pendingPlan: null });

    await fake.advanceClock(clockId!, periodEnd(sub) + 60);
    expect(await gateway.getSubscription(sub.id)).toMatchObject({ status: 'canceled' });
    expect(await gateway.findSubscription(customerId)).toBeNull();
  });

  it('finds the newest subscription that is not canceled', async () => {
    const { workspaceId, customerId, clockId, sub } = await subscribed('pro', { clock: true });
    await gateway.setCancelAtPeriodEnd(sub, true);
    await fake.advanceClock(clockId!, periodEnd(sub) + 60);
    const again = await gateway.startCheckout({ kind: 'subscription', workspaceId, customerId, plan: 'agency', successUrl: '/b', cancelUrl: '/b' });
    await fake.completeCheckout(again.id);
    const found = await gateway.findSubscription(customerId);
    expect(found).toMatchObject({ id: fake.object(again.id)!.subscription, plan: 'agency', status: 'active' });
    expect(requestsTo('GET', '/v1/subscriptions').find((r) => r.path === '/v1/subscriptions')!.form).toEqual({ customer: customerId, status: 'all', limit: '10' });
  });

  it('maps failed renewals to past_due, then canceled after three', async () => {
    const { customerId, clockId, sub } = await subscribed('pro', { clock: true });
    fake.failPayments(customerId, true);
    await fake.advanceClock(clockId!, periodEnd(sub) + 60);
    const overdue = await gateway.getSubscription(sub.id);
    expect(overdue).toMatchObject({ status: 'past_due', plan: 'pro' });
    expect((await gateway.listInvoices(customerId, { limit: 1 })).items[0]).toMatchObject({ reason: 'subscription_cycle', status: 'open' });
    expect(fake.events.some((e) => e.type === 'invoice.payment_failed' && e.data.object.customer === customerId)).toBe(true);
    await fake.advanceClock(clockId!, periodEnd(sub) + 70 * DAY);
    expect(await gateway.getSubscription(sub.id)).toMatchObject({ status: 'canceled' });
  });

  it('pages invoices newest first', async () => {
    const { customerId, clockId, sub } = await subscribed('pro', { clock: true });
    await fake.advanceClock(clockId!, periodEnd(sub) + 80 * DAY);
    const first = await gateway.listInvoices(customerId, { limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.hasMore).toBe(true);
    const second = await gateway.listInvoices(customerId, { limit: 3, startingAfter: first.items[2].id });
    expect(second.hasMore).toBe(false);
    const all = [...first.items, ...second.items];
    expect(all.map((i) => i.reason)).toEqual(['subscription_cycle', 'subscription_cycle', 'subscription_cycle', 'subscription_create']);
    expect(new Set(all.map((i) => i.id)).size).toBe(4);
    const created = all.map((i) => i.createdAt.getTime());
    expect([...created].sort((a, b) => b - a)).toEqual(created);
    expect(requestsTo('GET', '/v1/invoices').at(-1)!.form).toEqual({ customer: customerId, limit: '3', starting_after: first.items[2].id });
  });

  it('answers null for a checkout, subscription or invoice Stripe does not have', async () => {
    expect(await gateway.getCheckout('cs_test_missing')).toBeNull();
    expect(await gateway.getSubscription('sub_missing')).toBeNull();
    expect(await gateway.getInvoice('in_missing')).toBeNull();
  });

  it('throws PaymentProviderUnavailable on a Stripe 500, a refused key and an unreachable host, naming no secret', async () => {
    fake.failRequests(1, { path: '/v1/subscriptions/' });
    const failed = await gateway.getSubscription('sub_whatever').catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(PaymentProviderUnavailable);
    expect(String((failed as Error).cause)).toContain('HTTP 500');
    expect((failed as PaymentProviderUnavailable).code).toBe('payment_provider_unavailable');

    const refused = await new StripeGateway(settings(fake.url, { secretKey: 'sk_test_not_the_right_key_123' }), { appUrl: APP_URL })
      .createCustomer({ workspaceId: 'ws_x', name: 'x', email: 'x@x.test' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PaymentProviderUnavailable);
    expect((refused as Error).message).not.toContain('not_the_right_key');
    expect(String((refused as Error).cause)).not.toContain('not_the_right_key');

    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const unreachable = await new StripeGateway(settings(`http://127.0.0.1:${port}`), { appUrl: APP_URL }).getInvoice('in_x').catch((e: unknown) => e);
    expect(unreachable).toBeInstanceOf(PaymentProviderUnavailable);
    expect((unreachable as Error).message).not.toContain(STRIPE_TEST_KEY);
    expect(String((unreachable as Error).cause)).not.toContain(STRIPE_TEST_KEY);
  }, 20_000);

  describe('parseEvent', () => {
    let receiver: Server;
    const received: Array<{ body: Buffer; headers: IncomingHttpHeaders }> = [];

    beforeAll(async () => {
      receiver = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          received.push({ body: Buffer.concat(chunks), headers: req.headers });
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      fake.webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/stripe`;
    });
    afterAll(async () => {
      fake.webhookUrl = undefined;
      await new Promise<void>((r) => receiver.close(() => r()));
    });

    it('accepts what the fake delivers over HTTP, mapping each object type', async () => {
      received.length = 0;
      const { sessionId, subscriptionId } = await subscribed('pro');
      const events = received.map((d) => gateway.parseEvent(d.body, d.headers['stripe-signature'] as string));
      const byType = new Map(events.map((e) => [e.type, e]));
      expect(byType.get('checkout.session.completed')).toMatchObject({ objectType: 'checkout.session', objectId: sessionId });
      expect(byType.get('customer.subscription.created')).toMatchObject({ objectType: 'subscription', objectId: subscriptionId });
      expect(byType.get('invoice.paid')).toMatchObject({ objectType: 'invoice', objectId: expect.stringMatching(/^in_/) });
      expect(byType.get('customer.created')).toMatchObject({ objectType: 'other', objectId: expect.stringMatching(/^cus_/) });
      const last = fake.events.at(-1)!;
      expect(events.at(-1)).toEqual({ id: last.id, type: last.type, objectId: last.data.object.id, objectType: 'checkout.session', createdAt: new Date(last.created * 1000) });
    });

    it('refuses a forged signature, a stale timestamp, a missing header and a body changed after signing', () => {
      const event = fake.events.at(-1)!;
      const good = fake.signedDelivery(event);
      expect(gateway.parseEvent(Buffer.from(good.body), good.headers['stripe-signature']).id).toBe(event.id);

      const forged = fake.signedDelivery(event, { secret: 'whsec_someone_else' });
      const stale = fake.signedDelivery(event, { timestamp: Math.floor(Date.now() / 1000) - 301 });
      const attempts: Array<[Buffer, string | undefined]> = [
        [Buffer.from(forged.body), forged.headers['stripe-signature']],
        [Buffer.from(stale.body), stale.headers['stripe-signature']],
        [Buffer.from(good.body), undefined],
        [Buffer.from(good.body), ''],
        [Buffer.from(good.body.replace(event.id, 'evt_forged000000000000000000')), good.headers['stripe-signature']],
        [Buffer.from('not json'), good.headers['stripe-signature']],
      ];
      for (const [body, signature] of attempts) expect(() => gateway.parseEvent(body, signature)).toThrow(InvalidEventSignature);
    });
  });
});

describe('StripeGateway against API versions before 2025-03-31 (legacy shapes)', () => {
  let legacy: FakeStripe;
  beforeAll(async () => {
    legacy = await startFakeStripe({ secretKey: STRIPE_TEST_KEY, webhookSecret: STRIPE_TEST_WEBHOOK_SECRET, prices: TEST_PRICES, legacyShapes: true });
  });
  afterAll(() => legacy.close());

  it('reads periods from the subscription and the subscription id from invoice.subscription', async () => {
    const gw = new StripeGateway(settings(legacy.url), { appUrl: APP_URL });
    const customerId = await gw.createCustomer({ workspaceId: 'ws_legacy', name: 'Old', email: 'old@old.test' });
    const checkout = await gw.startCheckout({ kind: 'subscription', workspaceId: 'ws_legacy', customerId, plan: 'agency', successUrl: '/b', cancelUrl: '/b' });
    await legacy.completeCheckout(checkout.id);
    const raw = legacy.object(legacy.object(checkout.id)!.subscription)!;
    expect(raw.items.data[0].current_period_end).toBeUndefined();
    const sub = await gw.getSubscription(raw.id);
    expect(sub).toMatchObject({ plan: 'agency', currentPeriodStart: new Date(raw.current_period_start * 1000), currentPeriodEnd: new Date(raw.current_period_end * 1000) });
    const invoiceRaw = legacy.object(legacy.object(checkout.id)!.invoice)!;
    expect(invoiceRaw.parent).toBeUndefined();
    expect(await gw.getInvoice(invoiceRaw.id)).toMatchObject({ subscriptionId: raw.id, plan: 'agency', periodEnd: sub!.currentPeriodEnd });
  });
});

describe('the fake Stripe itself (what the e2e tests lean on)', () => {
  let receiver: Server;
  let stripeFake: FakeStripe;
  const received: Array<{ body: string; signature: string }> = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['stripe-signature']) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    stripeFake = await startFakeStripe({
      secretKey: STRIPE_TEST_KEY,
      webhookSecret: STRIPE_TEST_WEBHOOK_SECRET,
      prices: TEST_PRICES,
      webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
    });
  });
  afterAll(async () => {
    await stripeFake.close();
    await new Promise<void>((r) => receiver.close(() => r()));
  });

  const api = (path: string, init: RequestInit & { key?: string } = {}) =>
    fetch(`${stripeFake.url}${path}`, { ...init, redirect: 'manual', headers: { ...(init.key !== undefined && { authorization: `Bearer ${init.key}` }), 'content-type': 'application/x-www-form-urlencoded', ...init.headers } });

  it('answers Stripe-shaped errors: 401 without the key, 404 resource_missing, 400 parameter_unknown and idempotency_error', async () => {
    const noKey = await api('/v1/customers', { method: 'POST', body: 'name=x' });
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as any).error.type).toBe('invalid_request_error');

    const gone = await api('/v1/invoices/in_nothing', { key: STRIPE_TEST_KEY });
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as any).error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing', param: 'id' });

    const unknown = await api('/v1/customers', { method: 'POST', key: STRIPE_TEST_KEY, body: 'nmae=x' });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).error).toMatchObject({ code: 'parameter_unknown', param: 'nmae' });

    const key = `k-${randomUUID()}`;
    const first = await api('/v1/customers', { method: 'POST', key: STRIPE_TEST_KEY, body: 'name=a', headers: { 'idempotency-key': key } });
    const replay = await api('/v1/customers', { method: 'POST', key: STRIPE_TEST_KEY, body: 'name=a', headers: { 'idempotency-key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as any).id).toBe(((await first.json()) as any).id);
    const other = await api('/v1/customers', { method: 'POST', key: STRIPE_TEST_KEY, body: 'name=b', headers: { 'idempotency-key': key } });
    expect(other.status).toBe(400);
    expect(((await other.json()) as any).error.type).toBe('idempotency_error');
  });

  it('pays on the hosted page and redirects to success_url with the session id filled in', async () => {
    const gw = new StripeGateway(settings(stripeFake.url), { appUrl: APP_URL });
    const customerId = await gw.createCustomer({ workspaceId: 'ws_page', name: 'Page', email: 'page@x.test' });
    const checkout = await gw.startCheckout({ kind: 'pack', workspaceId: 'ws_page', customerId, pack: 'pack_100', successUrl: '/done?cs={CHECKOUT_SESSION_ID}', cancelUrl: '/b' });
    expect(await (await fetch(checkout.url)).text()).toContain('Pay 9.00 USD');
    const paid = await fetch(checkout.url, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`${APP_URL}/done?cs=${checkout.id}`);
    expect(await gw.getCheckout(checkout.id)).toMatchObject({ complete: true, paid: true, pack: 'pack_100' });
  });

  it('keeps dropped events, serves them on GET /v1/events/:id and redelivers one N times concurrently', async () => {
    stripeFake.dropEvents(true);
    const gw = new StripeGateway(settings(stripeFake.url), { appUrl: APP_URL });
    received.length = 0;
    await gw.createCustomer({ workspaceId: 'ws_dropped', name: 'Dropped', email: 'd@x.test' });
    await stripeFake.settled();
    stripeFake.dropEvents(false);
    expect(received).toHaveLength(0);
    const event = stripeFake.events.at(-1)!;
    expect(event.type).toBe('customer.created');
    const served = await api(`/v1/events/${event.id}`, { key: STRIPE_TEST_KEY });
    expect(await served.json()).toEqual(event);

    expect(await stripeFake.redeliver(event.id, { times: 3, concurrently: true })).toEqual([200, 200, 200]);
    expect(received).toHaveLength(3);
    for (const d of received) expect(gw.parseEvent(Buffer.from(d.body), d.signature).id).toBe(event.id);
  });

  it('runs test clocks through the API as Stripe does (test_clock on customer create, advance)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const clock = (await (await api('/v1/test_helpers/test_clocks', { method: 'POST', key: STRIPE_TEST_KEY, body: `frozen_time=${now}` })).json()) as any;
    expect(clock).toMatchObject({ object: 'test_helpers.test_clock', frozen_time: now, status: 'ready' });
    const cus = (await (await api('/v1/customers', { method: 'POST', key: STRIPE_TEST_KEY, body: `name=Clocked&test_clock=${clock.id}` })).json()) as any;
    expect(cus.test_clock).toBe(clock.id);
    const gw = new StripeGateway(settings(stripeFake.url), { appUrl: APP_URL });
    const checkout = await gw.startCheckout({ kind: 'subscription', workspaceId: 'ws_clock', customerId: cus.id, plan: 'pro', successUrl: '/b', cancelUrl: '/b' });
    await stripeFake.completeCheckout(checkout.id);
    const sub = (await gw.getSubscription(stripeFake.object(checkout.id)!.subscription))!;
    expect(sub.currentPeriodStart.getTime()).toBe(now * 1000);
    const advanced = await api(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { method: 'POST', key: STRIPE_TEST_KEY, body: `frozen_time=${periodEnd(sub) + 10}` });
    expect(((await advanced.json()) as any).frozen_time).toBe(periodEnd(sub) + 10);
    expect((await gw.getSubscription(sub.id))!.currentPeriodStart).toEqual(sub.currentPeriodEnd);
  });
});
