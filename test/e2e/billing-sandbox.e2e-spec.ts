import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, registerUser, root, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';

/**
 * Self-serve billing on a fresh machine: no Stripe settings, so payments go to the offline sandbox
 * and its hosted pages stand in for Stripe Checkout and the customer portal. Everything the user
 * sees arrives through the same event intake and sync as with Stripe.
 */

/** What GET /billing/subscription answers, as far as these tests read it. */
interface BillingView {
  plan: string;
  allocation: { granted: number };
  purchased_credits: number;
  balance: number;
  cancel_at_period_end: boolean;
}

const CHECKOUT_URL = /\/api\/v1\/billing\/sandbox\/checkout\/cs_sbx_[0-9a-f]{32}$/;
const PORTAL_URL = /\/api\/v1\/billing\/sandbox\/portal\/bps_sbx_[0-9a-f]{32}$/;

/** A hosted page's path and query: the URL is on PUBLIC_URL, which is the test server. */
function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

describe('billing sandbox (no Stripe settings)', () => {
  let backing: Backing;
  let server: TestServer;
  let user: TestUser;

  beforeAll(async () => {
    backing = await createBacking();
    // The outbox's billing work runs in the API (as on `npm start` without Redis).
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000', RUN_JOBS_IN_API: 'true' });
    user = await registerUser(server);
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  async function billing(who: TestUser = user): Promise<BillingView> {
    const res = await api(server).get('/billing/subscription').set(who.auth);
    if (res.status !== 200) throw new Error(`GET /billing/subscription: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as BillingView;
  }

  async function startCheckout(body: Record<string, unknown>): Promise<string> {
    const res = await api(server).post('/billing/checkout').set(user.auth).send(body);
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(CHECKOUT_URL);
    return res.body.url as string;
  }

  async function pay(url: string): Promise<URL> {
    const res = await root(server).post(`${pathOf(url)}/complete`).type('form').send('').redirects(0);
    expect(res.status).toBe(303);
    return new URL(res.headers.location);
  }

  it('subscribes to Pro through the hosted checkout page, and pays once however often the page is posted', async () => {
    const url = await startCheckout({ plan: 'pro' });
    const sessionId = url.split('/').at(-1)!;

    const page = await root(server).get(pathOf(url));
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.text).toContain('Sandbox: no money moves');
    expect(page.text).toContain('Pro plan');
    expect(page.text).toContain('$29.00 per month');
    expect(page.text).toContain(`action="${url}/complete"`);
    expect(page.text).toContain('>Cancel</a>');

    const success = await pay(url);
    expect(success.searchParams.get('session_id')).toBe(sessionId);
    const again = await pay(url);
    expect(again.toString()).toBe(success.toString());

    const subscribed = await waitFor(async () => {
      const b = await billing();
      return b.plan === 'pro' && b.allocation.granted === 200 ? b : null;
    }, 20_000, 'the Pro subscription and its allocation');
    expect(subscribed.cancel_at_period_end).toBe(false);

    // The paid page says so, and links on instead of offering to pay again.
    const paid = await root(server).get(pathOf(url));
    expect(paid.status).toBe(200);
    expect(paid.text).toContain('This checkout is paid.');
    expect(paid.text).not.toContain('<form');
  });

  it('buys a pack of 250 credits once, though its page is posted twice', async () => {
    const before = (await billing()).purchased_credits;
    const url = await startCheckout({ pack: 'pack_250' });
    const page = await root(server).get(pathOf(url));
    expect(page.status).toBe(200);
    expect(page.text).toContain('250 credits');
    expect(page.text).toContain('$20.00');
    expect(page.text).not.toContain('per month');

    await pay(url);
    await pay(url);
    await waitFor(async () => (await billing()).purchased_credits === before + 250, 20_000, 'the pack\'s 250 credits');
    // The second post handed the intake the same events again, which it had taken: nothing but the next pack adds up.
    const other = await startCheckout({ pack: 'pack_100' });
    await pay(other);
    await waitFor(async () => (await billing()).purchased_credits === before + 350, 20_000, 'the next pack\'s 100 credits');
  });

  it('cancels at the period\'s end and resumes through the hosted portal', async () => {
    const res = await api(server).post('/billing/portal').set(user.auth).send({});
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(PORTAL_URL);
    const portal = res.body.url as string;

    const page = await root(server).get(pathOf(portal));
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('Pro plan');
    expect(page.text).toContain('SBX-0001');
    expect(page.text).toContain('$29.00');
    expect(page.text).toContain('Cancel at period end');

    const cancel = await root(server).post(`${pathOf(portal)}/cancel`).type('form').send('').redirects(0);
    expect(cancel.status).toBe(303);
    expect(cancel.headers.location).toBe(portal);
    await waitFor(async () => (await billing()).cancel_at_period_end === true, 20_000, 'cancel_at_period_end');
    const cancelled = await root(server).get(pathOf(portal));
    expect(cancelled.text).toContain('Resume');

    const resume = await root(server).post(`${pathOf(portal)}/resume`).type('form').send('').redirects(0);
    expect(resume.status).toBe(303);
    await waitFor(async () => (await billing()).cancel_at_period_end === false, 20_000, 'the resumed subscription');
    expect((await billing()).plan).toBe('pro');
  });

  it('answers 404 for a session id it never made: the id is the only credential', async () => {
    const unknown = `cs_sbx_${'0'.repeat(32)}`;
    for (const res of [
      await root(server).get(`/api/v1/billing/sandbox/checkout/${unknown}`),
      await root(server).post(`/api/v1/billing/sandbox/checkout/${unknown}/complete`).type('form').send('').redirects(0),
      await root(server).post('/api/v1/billing/sandbox/checkout/cs_test_not_ours/complete').type('form').send('').redirects(0),
      await root(server).get(`/api/v1/billing/sandbox/portal/bps_sbx_${'0'.repeat(32)}`),
      await root(server).post(`/api/v1/billing/sandbox/portal/bps_sbx_${'0'.repeat(32)}/cancel`).type('form').send('').redirects(0),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it('lets another workspace\'s user pay only its own checkout', async () => {
    const other = await registerUser(server);
    const res = await api(server).post('/billing/checkout').set(other.auth).send({ pack: 'pack_100' });
    expect(res.status).toBe(200);
    const mine = (await billing()).purchased_credits;
    const theirs = (await billing(other)).purchased_credits;
    await pay(res.body.url as string);
    await waitFor(async () => (await billing(other)).purchased_credits === theirs + 100, 20_000, 'the other workspace\'s pack');
    expect((await billing()).purchased_credits).toBe(mine);
  });
});
