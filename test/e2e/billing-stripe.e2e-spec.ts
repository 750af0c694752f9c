import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe-server.js';
import { api, loginAdmin, registerUser, root, setPlan, type TestUser } from '../helpers/api.js';
import { inviteAndAccept, switchTo } from '../helpers/invitations.js';
import { mailbox } from '../helpers/mail.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';
import { STRIPE_TEST_KEY, STRIPE_TEST_WEBHOOK_SECRET, stripeEnv, TEST_PRICES } from '../helpers/stripe.js';

/**
 * Self-serve billing against the Stripe fake over real HTTP: the service's official SDK talks to the
 * fake, the fake signs and POSTs its events to the service's webhook, and the service reads the
 * customer's subscription and invoices back from it. Time is the fake's: each flow's customers are
 * attached to a test clock of their own, and renewals happen when that clock is advanced. One server
 * for the file, a fresh workspace per flow; after every flow the ledger adds up to the balance.
 */

/** What GET /billing/subscription answers. */
interface BillingView {
  plan: string;
  status: string;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
  pending_plan: string | null;
  allocation: { granted: number; used: number; remaining: number; resets_at: string | null };
  purchased_credits: number;
  balance: number;
}

interface LedgerLine {
  amount: number;
  balance_after: number;
  reason: string;
  ref_type: string | null;
  ref_id: string | null;
}

interface InvoiceLine {
  id: string;
  amount: number;
  status: string;
  plan: string | null;
  period_start: string;
  period_end: string;
}

type Auth = { Authorization: string };
type StripeEvent = Record<string, any>;

const SECONDS_PER_DAY = 86_400;
const WAIT_MS = 20_000;

describe('billing on Stripe (the fake, over HTTP)', () => {
  let fake: FakeStripe;
  let backing: Backing;
  let server: TestServer;
  let admin: Auth;
  /** The test clock of the flow running: every customer made in it is attached to it. */
  let clock: string;

  beforeAll(async () => {
    fake = await startFakeStripe({ secretKey: STRIPE_TEST_KEY, webhookSecret: STRIPE_TEST_WEBHOOK_SECRET, prices: { ...TEST_PRICES } });
    backing = await createBacking();
    server = await startServer(backing, {
      ...stripeEnv(fake),
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      RATE_LIMIT_MULTIPLIER: '50',
      RUN_JOBS_IN_API: 'true',
      OUTBOX_POLL_MS: '50',
    });
    fake.webhookUrl = `${server.url}/webhooks/stripe`;
    admin = await loginAdmin(server);
  }, 120_000);

  afterAll(async () => {
    fake?.dropEvents(false);
    await server?.stop();
    await fake?.close();
    await backing?.cleanup();
  });

  beforeEach(() => {
    fake.dropEvents(false);
    clock = fake.createTestClock();
    fake.setDefaultClock(clock);
  });

  // ---- reading the service ----

  async function billing(who: Auth): Promise<BillingView> {
    const res = await api(server).get('/billing/subscription').set(who);
    if (res.status !== 200) throw new Error(`GET /billing/subscription: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as BillingView;
  }

  function until(who: Auth, check: (b: BillingView) => boolean, what: string): Promise<BillingView> {
    return waitFor(async () => {
      const b = await billing(who);
      return check(b) ? b : null;
    }, WAIT_MS, what);
  }

  /** The whole ledger, newest first. */
  async function ledger(who: Auth): Promise<LedgerLine[]> {
    const entries: LedgerLine[] = [];
    for (let page = 1; ; page += 1) {
      const res = await api(server).get('/billing/ledger').query({ page, page_size: 100 }).set(who);
      if (res.status !== 200) throw new Error(`GET /billing/ledger: ${res.status} ${JSON.stringify(res.body)}`);
      entries.push(...(res.body.entries as LedgerLine[]));
      if (entries.length >= (res.body.total as number) || res.body.entries.length === 0) return entries;
    }
  }

  /** The invariant of every flow: the ledger adds up to the balance, and the two buckets make the balance. */
  async function expectBalanced(who: Auth): Promise<void> {
    const [b, entries] = await Promise.all([billing(who), ledger(who)]);
    expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(b.balance);
    expect(entries[0]?.balance_after ?? 0).toBe(b.balance);
    expect(b.allocation.remaining + b.purchased_credits).toBe(b.balance);
    expect(entries.every((e) => e.balance_after >= 0)).toBe(true);
  }

  async function invoices(who: Auth): Promise<InvoiceLine[]> {
    const res = await api(server).get('/billing/invoices').set(who);
    expect(res.status).toBe(200);
    return res.body.invoices as InvoiceLine[];
  }

  // ---- driving it ----

  async function checkout(who: Auth, body: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await api(server).post('/billing/checkout').set(who).send(body);
    if (res.status !== 200) throw new Error(`POST /billing/checkout ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Record<string, any>;
  }

  /** A hosted checkout of the fake's, for a plan or a pack: answers its session id after checking its page. */
  async function startCheckout(user: TestUser, body: { plan: string } | { pack: string }): Promise<string> {
    const res = await checkout(user.auth, body);
    expect(res).toMatchObject({ kind: 'checkout', subscription: null });
    const sessionId = res.session_id as string;
    expect(sessionId).toMatch(/^cs_test_/);
    expect(res.url).toBe(`${fake.url}/pay/${sessionId}`);
    expect(fake.object(sessionId)).toMatchObject({ client_reference_id: user.workspace.id, status: 'open' });
    return sessionId;
  }

  /** Subscribes through checkout and waits for the plan and its allocation; answers the Stripe ids. */
  async function subscribe(user: TestUser, plan: 'pro' | 'agency'): Promise<{ session: string; customer: string; subscription: string }> {
    const session = await startCheckout(user, { plan });
    await fake.completeCheckout(session);
    const granted = plan === 'pro' ? 200 : 500;
    await until(user.auth, (b) => b.plan === plan && b.allocation.granted === granted, `${plan} and its ${granted} credits`);
    const done = fake.object(session)!;
    return { session, customer: done.customer as string, subscription: done.subscription as string };
  }

  async function buyPack(user: TestUser, pack: 'pack_100' | 'pack_250'): Promise<string> {
    const before = (await billing(user.auth)).purchased_credits;
    const session = await startCheckout(user, { pack });
    await fake.completeCheckout(session);
    const credits = pack === 'pack_100' ? 100 : 250;
    await until(user.auth, (b) => b.purchased_credits === before + credits, `the ${pack} credits`);
    return session;
  }

  /** The subscription's current period end at the fake (unix seconds). */
  function periodEndOf(subscriptionId: string): number {
    return fake.object(subscriptionId)!.items.data[0].current_period_end as number;
  }

  /** Moves the flow's clock an hour past the subscription's period end: it renews (or ends) there. */
  async function renew(subscriptionId: string): Promise<void> {
    await fake.advanceClock(clock, periodEndOf(subscriptionId) + 3600);
  }

  async function debit(user: TestUser, amount: number): Promise<void> {
    const res = await api(server).post(`/admin/workspaces/${user.workspace.id}/credits`).set(admin).send({ amount: -amount, reason: 'e2e spend' });
    if (res.status !== 201) throw new Error(`debit failed: ${res.status} ${JSON.stringify(res.body)}`);
  }

  function eventsOf(match: (e: StripeEvent) => boolean): StripeEvent[] {
    return fake.events.filter(match);
  }

  /** One event of `type` whose object matches; exactly one must exist. */
  function theEvent(type: string, match: (object: Record<string, any>) => boolean): StripeEvent {
    const found = eventsOf((e) => e.type === type && match(e.data.object));
    expect(found).toHaveLength(1);
    return found[0];
  }

  /** The event as Stripe would deliver it, signed (or forged) as asked, POSTed to the webhook route. */
  function post(body: string, headers: Record<string, string>) {
    return root(server).post('/api/v1/webhooks/stripe').set(headers).send(body);
  }

  async function deliver(event: StripeEvent): Promise<{ received: boolean; duplicate: boolean }> {
    const { body, headers } = fake.signedDelivery(event);
    const res = await post(body, headers);
    if (res.status !== 200) throw new Error(`webhook ${String(event.type)}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { received: boolean; duplicate: boolean };
  }

  /** The grants of `reason` made for a cause (an invoice, a checkout). */
  function grantsFor(entries: LedgerLine[], reason: string, refId: string): LedgerLine[] {
    return entries.filter((e) => e.reason === reason && (e.ref_id === refId || e.ref_id === `invoice:${refId}` || e.ref_id === `pack:${refId}`));
  }

  /** The paid first invoice of a subscription. */
  function firstInvoiceOf(subscriptionId: string): Record<string, any> {
    return theEvent('invoice.paid', (o) => o.parent?.subscription_details?.subscription === subscriptionId && o.billing_reason === 'subscription_create').data.object;
  }

  // ---- the flows ----

  it('1. subscribes to Pro through the hosted checkout: Pro, 200 credits granted once for the invoice, the Starter leftover expired', async () => {
    const user = await registerUser(server);
    const start = await billing(user.auth);
    expect(start).toMatchObject({ plan: 'starter', status: 'active', pending_plan: null, allocation: { granted: 50, remaining: 50 }, purchased_credits: 0, balance: 50 });

    const session = await startCheckout(user, { plan: 'pro' });
    const page = await fetch(`${fake.url}/pay/${session}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Pay 29.00 USD');
    expect((await billing(user.auth)).plan).toBe('starter');

    await fake.completeCheckout(session);
    const subscribed = await until(user.auth, (b) => b.plan === 'pro' && b.allocation.granted === 200, 'Pro and its allocation');
    const subscription = fake.object(session)!.subscription as string;
    const end = new Date(periodEndOf(subscription) * 1000).toISOString();
    expect(subscribed).toMatchObject({
      plan: 'pro',
      status: 'active',
      current_period_end: end,
      cancel_at_period_end: false,
      pending_plan: null,
      allocation: { granted: 200, used: 0, remaining: 200, resets_at: end },
      purchased_credits: 0,
      balance: 200,
    });

    const invoice = firstInvoiceOf(subscription);
    const entries = await ledger(user.auth);
    const grants = entries.filter((e) => e.reason === 'allocation_granted');
    expect(grants.map((e) => [e.amount, e.ref_id])).toEqual([[200, `invoice:${invoice.id as string}`], [50, 'starter:1']]);
    expect(entries.filter((e) => e.reason === 'allocation_expired').map((e) => e.amount)).toEqual([-50]);
    expect((await invoices(user.auth)).map((i) => [i.id, i.amount, i.status, i.plan])).toEqual([[invoice.id, 2900, 'paid', 'pro']]);
    await expectBalanced(user.auth);
  });

  it('2. buys a pack of 250 and spends the allocation first, then the purchased credits', async () => {
    const user = await registerUser(server);
    await subscribe(user, 'pro');
    const pack = await buyPack(user, 'pack_250');
    expect(await billing(user.auth)).toMatchObject({ allocation: { granted: 200, remaining: 200 }, purchased_credits: 250, balance: 450 });
    expect(grantsFor(await ledger(user.auth), 'pack_purchased', pack).map((e) => e.amount)).toEqual([250]);

    await debit(user, 150);
    expect(await billing(user.auth)).toMatchObject({ allocation: { granted: 200, used: 150, remaining: 50 }, purchased_credits: 250, balance: 300 });
    await debit(user, 50);
    expect(await billing(user.auth)).toMatchObject({ allocation: { used: 200, remaining: 0 }, purchased_credits: 250, balance: 250 });
    await debit(user, 70);
    expect(await billing(user.auth)).toMatchObject({ allocation: { used: 200, remaining: 0 }, purchased_credits: 180, balance: 180 });

    const over = await api(server).post(`/admin/workspaces/${user.workspace.id}/credits`).set(admin).send({ amount: -181, reason: 'too much' });
    expect(over.status).toBe(402);
    expect(over.body.code).toBe('insufficient_credits');
    expect((await billing(user.auth)).balance).toBe(180);
    await expectBalanced(user.auth);
  });

  it('3. renews at the period end on the test clock: the allocation expires and comes again, pack credits stay, resets_at moves a month', async () => {
    const user = await registerUser(server);
    const { subscription } = await subscribe(user, 'pro');
    await buyPack(user, 'pack_250');
    await debit(user, 120);
    const before = await billing(user.auth);
    expect(before).toMatchObject({ allocation: { granted: 200, remaining: 80 }, purchased_credits: 250 });
    const firstEnd = periodEndOf(subscription);
    expect(before.allocation.resets_at).toBe(new Date(firstEnd * 1000).toISOString());

    await renew(subscription);
    const secondEnd = periodEndOf(subscription);
    expect(secondEnd - firstEnd).toBeGreaterThanOrEqual(28 * SECONDS_PER_DAY);
    expect(secondEnd - firstEnd).toBeLessThanOrEqual(31 * SECONDS_PER_DAY);
    const renewed = await until(user.auth, (b) => b.allocation.resets_at === new Date(secondEnd * 1000).toISOString(), 'the renewed allocation');
    expect(renewed).toMatchObject({
      plan: 'pro',
      status: 'active',
      current_period_end: new Date(secondEnd * 1000).toISOString(),
      allocation: { granted: 200, used: 0, remaining: 200 },
      purchased_credits: 250,
      balance: 450,
    });

    const cycle = theEvent('invoice.paid', (o) => o.parent?.subscription_details?.subscription === subscription && o.billing_reason === 'subscription_cycle').data.object;
    const entries = await ledger(user.auth);
    expect(grantsFor(entries, 'allocation_granted', cycle.id).map((e) => e.amount)).toEqual([200]);
    expect(entries.filter((e) => e.reason === 'allocation_expired').map((e) => e.amount)).toEqual([-80, -50]);
    expect((await invoices(user.auth)).map((i) => [i.id, i.amount, i.status, i.plan])[0]).toEqual([cycle.id, 2900, 'paid', 'pro']);
    await expectBalanced(user.auth);
  });

  it('4. upgrades to Agency at once: prorated invoice paid and listed, the allocation topped up to 500', async () => {
    const user = await registerUser(server);
    const { subscription } = await subscribe(user, 'pro');
    await debit(user, 30);

    const res = await checkout(user.auth, { plan: 'agency' });
    expect(res).toMatchObject({ kind: 'upgraded', url: null, session_id: null });
    expect(res.subscription).toMatchObject({ plan: 'agency', status: 'active', pending_plan: null, allocation: { granted: 500, remaining: 470 }, balance: 470 });
    expect(fake.object(subscription)!.items.data[0].price.id).toBe(TEST_PRICES.agency.id);
    expect(await billing(user.auth)).toMatchObject({ plan: 'agency', allocation: { granted: 500, used: 30, remaining: 470 } });

    const proration = theEvent('invoice.paid', (o) => o.parent?.subscription_details?.subscription === subscription && o.billing_reason === 'subscription_update').data.object;
    const listed = await invoices(user.auth);
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({ id: proration.id, status: 'paid', plan: 'agency', amount: proration.total });
    expect(listed[0].amount).toBeGreaterThan(0);
    expect(listed[0].amount).toBeLessThanOrEqual(9900 - 2900);
    expect(listed[1]).toMatchObject({ amount: 2900, plan: 'pro', status: 'paid' });

    // Every event of the upgrade has arrived by now: still one top-up of 300.
    await fake.settled();
    await until(user.auth, (b) => b.plan === 'agency', 'agency after the events');
    expect(grantsFor(await ledger(user.auth), 'allocation_granted', proration.id).map((e) => e.amount)).toEqual([300]);
    await expectBalanced(user.auth);
  });

  it('5. downgrades to Pro at the period end; an API key is refused meanwhile and kept, and works again after upgrading back', async () => {
    const user = await registerUser(server);
    const { subscription } = await subscribe(user, 'agency');
    const created = await api(server).post('/api-keys').set(user.auth).send({ name: 'billing e2e', scopes: ['credits:read'] });
    expect(created.status).toBe(201);
    const key = { Authorization: `Bearer ${created.body.key as string}` };
    const keyId = created.body.api_key.id as string;
    expect(await api(server).get('/public/credits').set(key)).toMatchObject({ status: 200, body: { plan: 'agency', balance: 500 } });

    const down = await checkout(user.auth, { plan: 'pro' });
    expect(down).toMatchObject({ kind: 'downgrade_scheduled', url: null, subscription: { plan: 'agency', pending_plan: 'pro', cancel_at_period_end: false } });
    expect(await billing(user.auth)).toMatchObject({ plan: 'agency', pending_plan: 'pro', allocation: { granted: 500 } });
    expect((await api(server).get('/public/credits').set(key)).status).toBe(200);

    await renew(subscription);
    const moved = await until(user.auth, (b) => b.plan === 'pro' && b.allocation.granted === 200, 'the downgrade at the period end');
    expect(moved).toMatchObject({ status: 'active', pending_plan: null, allocation: { remaining: 200 }, balance: 200 });
    const refused = await waitFor(async () => {
      const res = await api(server).get('/public/credits').set(key);
      return res.status === 200 ? null : res;
    }, WAIT_MS, 'the key to be refused');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('plan_required');
    const keys = await api(server).get('/api-keys').set(user.auth);
    expect(keys.status).toBe(200);
    expect((keys.body.api_keys as Array<{ id: string }>).map((k) => k.id)).toEqual([keyId]);

    const up = await checkout(user.auth, { plan: 'agency' });
    expect(up).toMatchObject({ kind: 'upgraded', subscription: { plan: 'agency', allocation: { granted: 500 } } });
    const back = await waitFor(async () => {
      const res = await api(server).get('/public/credits').set(key);
      return res.status === 200 ? res : null;
    }, WAIT_MS, 'the key to work again');
    expect(back.body).toEqual({ plan: 'agency', balance: 500 });
    await expectBalanced(user.auth);
  });

  it('6. a failing card: past_due keeps the plan and mails the owner; after the last retry the subscription ends and the plan is Starter', async () => {
    const user = await registerUser(server);
    const { customer, subscription } = await subscribe(user, 'pro');
    fake.failPayments(customer, true);

    await renew(subscription);
    const pastDue = await until(user.auth, (b) => b.status === 'past_due', 'past_due');
    expect(pastDue).toMatchObject({ plan: 'pro', cancel_at_period_end: false });
    const failed = theEvent('invoice.payment_failed', (o) => o.customer === customer).data.object;
    const mail = await waitFor(async () => (await mailbox(server, user.user.email)).find((m) => m.template === 'billing.payment_failed'), WAIT_MS, 'the payment_failed mail');
    expect(mail.text).toContain('$29.00');
    expect(mail.links[0]).toBe(failed.hosted_invoice_url);
    // The unpaid renewal granted nothing.
    expect(grantsFor(await ledger(user.auth), 'allocation_granted', failed.id)).toEqual([]);

    // Two more failed renewals (each seen here before the next, as a month apart would): the fake's retry policy ends the subscription.
    await renew(subscription);
    const third = new Date(periodEndOf(subscription) * 1000).toISOString();
    expect(await until(user.auth, (b) => b.current_period_end === third, 'the second failed renewal')).toMatchObject({ plan: 'pro', status: 'past_due' });
    await renew(subscription);
    expect(fake.object(subscription)).toMatchObject({ status: 'canceled' });
    const ended = await until(user.auth, (b) => b.plan === 'starter', 'Starter after the subscription ended');
    expect(ended).toMatchObject({ status: 'active', cancel_at_period_end: false, pending_plan: null });
    expect((await api(server).post('/billing/subscription/cancel').set(user.auth)).body.code).toBe('no_subscription');
    await expectBalanced(user.auth);
  });

  it('7. cancels at the period end and resumes; cancelled again, the subscription ends there and the plan is Starter', async () => {
    const user = await registerUser(server);
    const { subscription } = await subscribe(user, 'pro');

    const cancel = await api(server).post('/billing/subscription/cancel').set(user.auth);
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ plan: 'pro', cancel_at_period_end: true, pending_plan: 'starter' });
    expect(fake.object(subscription)).toMatchObject({ cancel_at_period_end: true });

    const resume = await api(server).post('/billing/subscription/resume').set(user.auth);
    expect(resume.status).toBe(200);
    expect(resume.body).toMatchObject({ plan: 'pro', cancel_at_period_end: false, pending_plan: null });
    expect(fake.object(subscription)).toMatchObject({ cancel_at_period_end: false });

    expect((await api(server).post('/billing/subscription/cancel').set(user.auth)).body).toMatchObject({ cancel_at_period_end: true });
    await renew(subscription);
    expect(fake.object(subscription)).toMatchObject({ status: 'canceled' });
    const ended = await until(user.auth, (b) => b.plan === 'starter' && b.allocation.granted === 50, 'Starter and its allocation at the period end');
    // The Pro allocation's leftover expired; the Starter one runs to the next anniversary of the workspace.
    expect(ended).toMatchObject({ cancel_at_period_end: false, pending_plan: null, allocation: { granted: 50, used: 0, remaining: 50 } });
    // Nothing of the ended subscription was billed again.
    expect((await invoices(user.auth)).map((i) => i.amount)).toEqual([2900]);
    await expectBalanced(user.auth);
  });

  it('8. grants exactly once: one event 20 times at once, and the first payment\'s three events in every order', async () => {
    // 20 concurrent deliveries of one signed invoice.paid.
    const user = await registerUser(server);
    fake.dropEvents(true);
    const session = await startCheckout(user, { plan: 'pro' });
    await fake.completeCheckout(session);
    fake.dropEvents(false);
    const subscription = fake.object(session)!.subscription as string;
    const paid = theEvent('invoice.paid', (o) => o.parent?.subscription_details?.subscription === subscription);
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(paid)));
    expect(answers.filter((a) => !a.duplicate)).toHaveLength(1);
    expect(answers.every((a) => a.received)).toBe(true);
    await until(user.auth, (b) => b.plan === 'pro' && b.allocation.granted === 200, 'Pro from the repeated invoice.paid');
    expect(await fake.redeliver(paid.id as string, { times: 5, concurrently: true })).toEqual([200, 200, 200, 200, 200]);

    // The three events of a first payment, in all six orders, each order for a new workspace.
    const orders = [
      ['checkout.session.completed', 'invoice.paid', 'customer.subscription.updated'],
      ['checkout.session.completed', 'customer.subscription.updated', 'invoice.paid'],
      ['invoice.paid', 'checkout.session.completed', 'customer.subscription.updated'],
      ['invoice.paid', 'customer.subscription.updated', 'checkout.session.completed'],
      ['customer.subscription.updated', 'checkout.session.completed', 'invoice.paid'],
      ['customer.subscription.updated', 'invoice.paid', 'checkout.session.completed'],
    ];
    const users = await Promise.all(orders.map(() => registerUser(server)));
    fake.dropEvents(true);
    const flows: Array<{ user: TestUser; order: string[]; events: Record<string, StripeEvent>; invoice: string }> = [];
    for (const [i, order] of orders.entries()) {
      const s = await startCheckout(users[i], { plan: 'pro' });
      await fake.completeCheckout(s);
      const sub = fake.object(s)!.subscription as string;
      const events = {
        'checkout.session.completed': theEvent('checkout.session.completed', (o) => o.id === s),
        'invoice.paid': theEvent('invoice.paid', (o) => o.parent?.subscription_details?.subscription === sub),
        'customer.subscription.updated': theEvent('customer.subscription.updated', (o) => o.id === sub && o.status === 'active'),
      };
      flows.push({ user: users[i], order, events, invoice: events['invoice.paid'].data.object.id as string });
    }
    fake.dropEvents(false);
    for (const f of flows) expect((await billing(f.user.auth)).plan).toBe('starter');
    await Promise.all(
      flows.map(async (f) => {
        for (const type of f.order) expect(await deliver(f.events[type])).toEqual({ received: true, duplicate: false });
      }),
    );
    for (const f of [{ user, invoice: paid.data.object.id as string }, ...flows]) {
      await until(f.user.auth, (b) => b.plan === 'pro' && b.allocation.granted === 200, 'Pro in this order');
      const entries = await ledger(f.user.auth);
      expect(grantsFor(entries, 'allocation_granted', f.invoice).map((e) => e.amount)).toEqual([200]);
      expect(entries.filter((e) => e.reason === 'allocation_granted')).toHaveLength(2);
      await expectBalanced(f.user.auth);
    }
  });

  it('9. refuses forged, stale and unsigned webhooks with 401, and none of them is taken', async () => {
    const user = await registerUser(server);
    fake.dropEvents(true);
    const session = await startCheckout(user, { plan: 'pro' });
    await fake.completeCheckout(session);
    fake.dropEvents(false);
    const subscription = fake.object(session)!.subscription as string;
    const paid = theEvent('invoice.paid', (o) => o.parent?.subscription_details?.subscription === subscription);
    const completed = theEvent('checkout.session.completed', (o) => o.id === session);

    const genuine = fake.signedDelivery(paid);
    const attempts: Array<[string, string, Record<string, string>]> = [];
    for (const event of [paid, completed]) {
      const good = fake.signedDelivery(event);
      const { 'stripe-signature': _signature, ...unsigned } = good.headers;
      attempts.push(
        ['another secret', good.body, fake.signedDelivery(event, { secret: 'whsec_not_the_endpoint_secret' }).headers],
        ['stale (301 s)', good.body, fake.signedDelivery(event, { timestamp: Math.floor(Date.now() / 1000) - 301 }).headers],
        ['stale (an hour)', good.body, fake.signedDelivery(event, { timestamp: Math.floor(Date.now() / 1000) - 3600 }).headers],
        ['tampered body', good.body.replace('"livemode": false', '"livemode": true'), good.headers],
        ['unsigned', good.body, unsigned],
        ['garbage signature', good.body, { ...unsigned, 'stripe-signature': 'not-a-signature' }],
        ['no v1', good.body, { ...unsigned, 'stripe-signature': `t=${Math.floor(Date.now() / 1000)}` }],
      );
    }
    expect(genuine.body).not.toBe(attempts[3][1]);
    for (const [what, body, headers] of attempts) {
      const res = await post(body, headers);
      expect([what, res.status, res.body.code]).toEqual([what, 401, 'unauthorized']);
    }
    expect(await billing(user.auth)).toMatchObject({ plan: 'starter', allocation: { granted: 50, remaining: 50 }, balance: 50 });
    expect((await ledger(user.auth)).map((e) => e.reason)).toEqual(['allocation_granted']);

    // The same events, signed: they are new to the service (none of the refused ones was recorded), and they apply.
    expect(await deliver(paid)).toEqual({ received: true, duplicate: false });
    expect(await deliver(completed)).toEqual({ received: true, duplicate: false });
    await until(user.auth, (b) => b.plan === 'pro' && b.allocation.granted === 200, 'Pro from the genuine events');
    await expectBalanced(user.auth);
  });

  it('10. reconciles a subscription none of whose webhooks arrived, and its end none of whose webhooks arrived either', async () => {
    // A pack buyer on a plan an administrator gave: a customer at the provider, never a subscription.
    const given = await registerUser(server);
    await setPlan(server, admin, given.workspace.id, 'agency');
    await buyPack(given, 'pack_100');

    const user = await registerUser(server);
    fake.dropEvents(true);
    const session = await startCheckout(user, { plan: 'pro' });
    await fake.completeCheckout(session);
    const subscription = fake.object(session)!.subscription as string;
    expect(fake.object(subscription)).toMatchObject({ status: 'active' });
    expect(fake.deliveries.filter((d) => d.eventId === theEvent('checkout.session.completed', (o) => o.id === session).id)).toEqual([]);
    expect(await billing(user.auth)).toMatchObject({ plan: 'starter', allocation: { granted: 50 } });

    const forbidden = await api(server).post('/admin/billing/reconcile').set(user.auth);
    expect(forbidden.status).toBe(403);
    const res = await api(server).post('/admin/billing/reconcile').set(admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ checked: expect.any(Number), drifted: expect.any(Number), failed: 0 });
    expect(res.body.drifted).toBeGreaterThanOrEqual(1);
    expect(res.body.checked).toBeGreaterThanOrEqual(res.body.drifted);
    const invoice = firstInvoiceOf(subscription);
    expect(await billing(user.auth)).toMatchObject({ plan: 'pro', status: 'active', allocation: { granted: 200, remaining: 200 }, balance: 200 });
    expect(grantsFor(await ledger(user.auth), 'allocation_granted', invoice.id).map((e) => e.amount)).toEqual([200]);

    // A second pass finds nothing more to mend for it.
    const again = await api(server).post('/admin/billing/reconcile').set(admin);
    expect(again.body.failed).toBe(0);
    expect((await billing(user.auth)).allocation.granted).toBe(200);
    expect(grantsFor(await ledger(user.auth), 'allocation_granted', invoice.id)).toHaveLength(1);
    await expectBalanced(user.auth);
    // Billing gave the pack buyer's plan nothing, so it takes nothing away.
    expect(await billing(given.auth)).toMatchObject({ plan: 'agency', purchased_credits: 100 });

    // Cancelled, and the period ends with every webhook lost: still Pro here until the next pass.
    expect((await api(server).post('/billing/subscription/cancel').set(user.auth)).body).toMatchObject({ plan: 'pro', cancel_at_period_end: true, pending_plan: 'starter' });
    await renew(subscription);
    expect(fake.object(subscription)).toMatchObject({ status: 'canceled' });
    expect(await billing(user.auth)).toMatchObject({ plan: 'pro', cancel_at_period_end: true });
    const ended = await api(server).post('/admin/billing/reconcile').set(admin);
    expect(ended.body).toMatchObject({ failed: 0 });
    expect(ended.body.drifted).toBeGreaterThanOrEqual(1);
    expect(await billing(user.auth)).toMatchObject({ plan: 'starter', status: 'active', cancel_at_period_end: false, pending_plan: null });
    expect((await api(server).post('/billing/subscription/resume').set(user.auth)).body.code).toBe('no_subscription');
    for (const who of [user.auth, given.auth]) await expectBalanced(who);
  });

  it('11. refuses what it must: viewers, API keys, bad bodies, an unchanged plan, a cancel without subscription; invoices are the caller\'s own', async () => {
    const owner = await registerUser(server);
    await subscribe(owner, 'pro');

    // A viewer reads, never pays or changes.
    const member = await registerUser(server);
    await inviteAndAccept(server, owner.auth, owner.workspace.id, member, 'viewer');
    const viewer = await switchTo(server, member.auth, owner.workspace.id);
    for (const [path, body] of [['/billing/checkout', { pack: 'pack_100' }], ['/billing/checkout', { plan: 'agency' }], ['/billing/portal', {}], ['/billing/subscription/cancel', {}], ['/billing/subscription/resume', {}]] as const) {
      const res = await api(server).post(path).set(viewer).send(body);
      expect([path, res.status, res.body.code]).toEqual([path, 403, 'insufficient_role']);
    }
    expect(await billing(viewer)).toMatchObject({ plan: 'pro', cancel_at_period_end: false, allocation: { granted: 200 } });
    expect((await api(server).get('/billing/invoices').set(viewer)).status).toBe(200);

    // The owner may open the portal: the fake's.
    const portal = await api(server).post('/billing/portal').set(owner.auth);
    expect(portal.status).toBe(200);
    expect(portal.body.url).toMatch(new RegExp(`^${fake.url}/portal/bps_`));

    // An API key never reaches billing.
    const agency = await registerUser(server);
    await setPlan(server, admin, agency.workspace.id, 'agency');
    const created = await api(server).post('/api-keys').set(agency.auth).send({ name: 'billing', scopes: ['credits:read'] });
    expect(created.status).toBe(201);
    const key = { Authorization: `Bearer ${created.body.key as string}` };
    for (const [method, path] of [['get', '/billing/subscription'], ['get', '/billing/invoices'], ['post', '/billing/checkout'], ['post', '/billing/portal'], ['post', '/billing/subscription/cancel']] as const) {
      const res = await api(server)[method](path).set(key).send(method === 'post' ? { plan: 'pro' } : undefined);
      expect([path, res.status, res.body.code]).toEqual([path, 401, 'session_required']);
    }

    // Bodies: a plan that is not sold, both, neither, unknown fields.
    for (const body of [{ plan: 'starter' }, { plan: 'gold' }, { pack: 'pack_3' }, { plan: 'pro', pack: 'pack_100' }, {}, { plan: 'pro', coupon: 'FREE' }]) {
      const res = await api(server).post('/billing/checkout').set(owner.auth).send(body);
      expect([body, res.status, res.body.code]).toEqual([body, 400, 'validation_failed']);
    }

    // The plan the workspace is on.
    const same = await api(server).post('/billing/checkout').set(owner.auth).send({ plan: 'pro' });
    expect(same.status).toBe(409);
    expect(same.body.code).toBe('plan_unchanged');

    // Cancel or resume without a subscription.
    const starter = await registerUser(server);
    for (const path of ['/billing/subscription/cancel', '/billing/subscription/resume']) {
      const res = await api(server).post(path).set(starter.auth);
      expect([path, res.status, res.body.code]).toEqual([path, 409, 'no_subscription']);
    }
    expect(await invoices(starter.auth)).toEqual([]);

    // Two subscribers each see their own invoices only.
    const other = await registerUser(server);
    await subscribe(other, 'agency');
    const mine = await invoices(owner.auth);
    const theirs = await invoices(other.auth);
    expect(mine.map((i) => [i.amount, i.plan])).toEqual([[2900, 'pro']]);
    expect(theirs.map((i) => [i.amount, i.plan])).toEqual([[9900, 'agency']]);

    for (const who of [owner.auth, other.auth, starter.auth, agency.auth]) await expectBalanced(who);
  });
});
