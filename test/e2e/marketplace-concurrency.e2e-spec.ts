import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, grantCredits, loginAdmin, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';

/** Purchases racing each other: nothing is overspent, nothing sells twice, every ledger adds up. */
describe('marketplace under concurrency', () => {
  let backing: Backing;
  let server: TestServer;
  let admin: { Authorization: string };

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '10' });
    admin = await loginAdmin(server);
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  /** A fresh workspace on `plan` holding exactly `credits` (the signup grant is 50). */
  const account = async (credits: number, plan = 'agency'): Promise<TestUser> => {
    const u = await registerUser(server);
    if (plan !== 'starter') await setPlan(server, admin, u.workspace.id, plan);
    if (credits > 50) await grantCredits(server, admin, u.workspace.id, credits - 50);
    if (credits < 50) {
      const res = await api(server).post(`/admin/workspaces/${u.workspace.id}/credits`).set(admin).send({ amount: credits - 50, reason: 'e2e take' });
      if (res.status !== 201 && res.status !== 200) throw new Error(`take failed: ${res.status}`);
    }
    return u;
  };
  const list = async (seller: TestUser, body: Record<string, unknown>) => {
    const c = await api(server).post('/characters').set(seller.auth).send({ name: 'Racer', niche: 'speed' });
    const res = await api(server).post('/marketplace/listings').set(seller.auth).send({ character_id: c.body.character.id, currency: 'credits', license_type: 'personal', ...body });
    if (res.status !== 201) throw new Error(`listing: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.listing as { id: string; character_id: string };
  };
  const buy = (user: TestUser, id: string) => api(server).post(`/marketplace/${id}/purchase`).set(user.auth);
  const balanceOf = async (user: TestUser) => (await api(server).get('/billing/credits').set(user.auth)).body.balance as number;
  const charactersOf = async (user: TestUser) => (await api(server).get('/characters?page_size=100').set(user.auth)).body.total as number;

  /** The ledger's entries sum to the balance and the newest entry's balance_after is the balance. */
  async function expectLedgerMatches(user: TestUser): Promise<void> {
    const entries: Array<{ amount: number; balance_after: number }> = [];
    for (let page = 1; ; page++) {
      const res = await api(server).get(`/billing/ledger?page=${page}&page_size=100`).set(user.auth);
      entries.push(...res.body.entries);
      if (entries.length >= res.body.total) break;
    }
    const balance = await balanceOf(user);
    expect(entries.reduce((s, e) => s + e.amount, 0)).toBe(balance);
    expect(entries[0]?.balance_after ?? 0).toBe(balance);
  }

  it('20 concurrent purchases of a 100-credit listing by a buyer holding 100: one succeeds, balance 0, one clone', async () => {
    const seller = await account(50);
    const buyer = await account(100);
    const listing = await list(seller, { price: 100 });
    const charactersBefore = await charactersOf(buyer);
    const answers = await Promise.all(Array.from({ length: 20 }, () => buy(buyer, listing.id)));
    const codes = answers.map((r) => (r.status === 201 ? 'ok' : `${r.status} ${r.body.code}`));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(1);
    for (const c of codes.filter((x) => x !== 'ok')) expect(['402 insufficient_credits', '409 already_purchased']).toContain(c);
    expect(await balanceOf(buyer)).toBe(0);
    expect(await charactersOf(buyer)).toBe(charactersBefore + 1);
    expect((await api(server).get('/marketplace/my-purchases').set(buyer.auth)).body.total).toBe(1);
    expect(await balanceOf(seller)).toBe(50 + 80);
    await expectLedgerMatches(buyer);
    await expectLedgerMatches(seller);
  });

  it('10 buyers racing for one exclusive listing: exactly one purchase', async () => {
    const seller = await account(50);
    const listing = await list(seller, { price: 30, license_type: 'exclusive' });
    const buyers = await Promise.all(Array.from({ length: 10 }, () => account(100)));
    const answers = await Promise.all(buyers.map((b) => buy(b, listing.id)));
    const winners = answers.filter((r) => r.status === 201);
    expect(winners).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 201)) expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: 'listing_unavailable' });
    const seen = await api(server).get(`/marketplace/${listing.id}`).set(seller.auth);
    expect(seen.body.listing).toMatchObject({ status: 'sold', sales_count: 1 });
    expect(await balanceOf(seller)).toBe(50 + 24);
    const balances = await Promise.all(buyers.map(balanceOf));
    expect(balances.sort((a, b) => a - b)).toEqual([70, ...Array<number>(9).fill(100)]);
    for (const u of [seller, ...buyers]) await expectLedgerMatches(u);
  });

  it('many buyers of one non-exclusive listing all succeed, each paid for once', async () => {
    const seller = await account(50);
    const listing = await list(seller, { price: 10 });
    const buyers = await Promise.all(Array.from({ length: 10 }, () => account(10)));
    const answers = await Promise.all(buyers.map((b) => buy(b, listing.id)));
    expect(answers.map((r) => r.status)).toEqual(Array<number>(10).fill(201));
    expect((await api(server).get(`/marketplace/${listing.id}`).set(seller.auth)).body.listing.sales_count).toBe(10);
    expect(await balanceOf(seller)).toBe(50 + 10 * 8);
    for (const u of [seller, ...buyers]) await expectLedgerMatches(u);
  });

  it('crossing purchases (A buys from B while B buys from A) neither deadlock nor fail', async () => {
    const a = await account(1000);
    const b = await account(1000);
    const fromA = await Promise.all(Array.from({ length: 5 }, () => list(a, { price: 10 })));
    const fromB = await Promise.all(Array.from({ length: 5 }, () => list(b, { price: 10 })));
    const answers = await Promise.all([...fromA.map((l) => buy(b, l.id)), ...fromB.map((l) => buy(a, l.id))]);
    expect(answers.map((r) => r.status)).toEqual(Array<number>(10).fill(201));
    expect(await balanceOf(a)).toBe(1000 - 50 + 40);
    expect(await balanceOf(b)).toBe(1000 - 50 + 40);
    await expectLedgerMatches(a);
    await expectLedgerMatches(b);
  });

  it('concurrent listings of one character: one goes live, the rest get listing_exists', async () => {
    const seller = await account(50);
    const c = await api(server).post('/characters').set(seller.auth).send({ name: 'Twice', niche: 'speed' });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        api(server).post('/marketplace/listings').set(seller.auth).send({ character_id: c.body.character.id, price: 5, currency: 'credits', license_type: 'personal' }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 201)) expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: 'listing_exists' });
    expect((await api(server).get('/marketplace/my-listings').set(seller.auth)).body.total).toBe(1);
  });
});
