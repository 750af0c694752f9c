import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { api, grantCredits, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';

const LISTING_KEYS = [
  'character_id', 'created_at', 'currency', 'description', 'id', 'license_type', 'niche', 'preview_images', 'price', 'price_credits',
  'rating', 'rating_count', 'sales_count', 'seller_workspace_id', 'status', 'title', 'updated_at',
].sort();

async function makePng(seed: number): Promise<Buffer> {
  const width = 32;
  const height = 32;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * (seed + 3) * 7919 + seed * 31) % 256;
  return sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** What a failed purchase must leave exactly as it was. */
interface Books {
  balance: number;
  ledger: Array<{ amount: number; balance_after: number; reason: string; ref_type: string | null; ref_id: string | null }>;
  purchases: number;
  characters: string[];
}

describe('marketplace', () => {
  let backing: Backing;
  let server: TestServer;
  let admin: { Authorization: string };
  let seller: TestUser;
  let buyer: TestUser;
  let sellerKey: string;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '10' });
    admin = await loginAdmin(server);
    seller = await registerUser(server);
    buyer = await registerUser(server);
    await setPlan(server, admin, seller.workspace.id, 'agency');
    await setPlan(server, admin, buyer.workspace.id, 'agency');
    const key = await api(server).post('/api-keys').set(seller.auth).send({ name: 'mkt', scopes: ['characters:read', 'credits:read'] });
    sellerKey = key.body.key;
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  const newCharacter = async (user: TestUser, body: Record<string, unknown> = {}): Promise<string> => {
    const res = await api(server).post('/characters').set(user.auth).send({ name: 'Mia Costa', niche: 'travel', ...body });
    if (res.status !== 201) throw new Error(`character: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.character.id;
  };
  const createListing = (user: TestUser, body: Record<string, unknown>) => api(server).post('/marketplace/listings').set(user.auth).send(body);
  const listCharacter = async (user: TestUser, body: Record<string, unknown> = {}, character: Record<string, unknown> = {}) => {
    const characterId = await newCharacter(user, character);
    const res = await createListing(user, { character_id: characterId, price: 10, currency: 'credits', license_type: 'personal', ...body });
    if (res.status !== 201) throw new Error(`listing: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.listing;
  };
  const buy = (user: TestUser, id: string) => api(server).post(`/marketplace/${id}/purchase`).set(user.auth);
  // Media URLs are signed (path and query); the worker may sign with another PUBLIC_URL, so ask this server.
  const fetchMedia = (url: string) => fetch(new URL(`${new URL(url).pathname}${new URL(url).search}`, server.url));
  const fresh = async (credits = 0, plan = 'agency'): Promise<TestUser> => {
    const u = await registerUser(server);
    if (plan !== 'starter') await setPlan(server, admin, u.workspace.id, plan);
    if (credits > 0) await grantCredits(server, admin, u.workspace.id, credits);
    return u;
  };

  async function books(user: TestUser): Promise<Books> {
    const [credits, ledger, purchases, characters] = await Promise.all([
      api(server).get('/billing/credits').set(user.auth),
      api(server).get('/billing/ledger?page_size=100').set(user.auth),
      api(server).get('/marketplace/my-purchases?page_size=100').set(user.auth),
      api(server).get('/characters?page_size=100').set(user.auth),
    ]);
    return {
      balance: credits.body.balance,
      ledger: ledger.body.entries,
      purchases: purchases.body.total,
      characters: characters.body.characters.map((c: { id: string }) => c.id).sort(),
    };
  }

  function expectConsistent(b: Books): void {
    expect(b.ledger.reduce((s, e) => s + e.amount, 0)).toBe(b.balance);
    expect(b.ledger[0]?.balance_after ?? 0).toBe(b.balance);
  }

  /** Runs a refused purchase and checks nothing moved on either side. */
  async function expectRefused(user: TestUser, listingId: string, status: number, code: string, sellerOf: TestUser = seller) {
    const [before, sellerBefore] = [await books(user), await books(sellerOf)];
    const res = await buy(user, listingId);
    expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
    expect(await books(user)).toEqual(before);
    expect(await books(sellerOf)).toEqual(sellerBefore);
    return res;
  }

  describe('listings', () => {
    it('creates a listing with every contract field, price_credits and the character frozen in', async () => {
      const characterId = await newCharacter(seller, { name: 'Lena Park', niche: 'Fitness' });
      const up = await api(server).post(`/characters/${characterId}/reference-images`).set(seller.auth).attach('file', await makePng(1), { filename: 'a.png', contentType: 'image/png' });
      expect(up.status).toBe(201);
      const res = await createListing(seller, { character_id: characterId, price: 9.99, currency: 'USD', license_type: 'commercial', description: '  Morning routines  ' });
      expect(res.status).toBe(201);
      const l = res.body.listing;
      expect(Object.keys(l).sort()).toEqual(LISTING_KEYS);
      expect(l).toMatchObject({
        id: expect.stringMatching(/^mkt_[0-9A-Z]{26}$/),
        character_id: characterId,
        seller_workspace_id: seller.workspace.id,
        title: 'Lena Park',
        niche: 'Fitness',
        price: 9.99,
        currency: 'USD',
        price_credits: 100,
        license_type: 'commercial',
        status: 'active',
        description: 'Morning routines',
        rating: null,
        rating_count: 0,
        sales_count: 0,
      });
      // No previews given: the template's own image, copied to bytes the listing owns.
      expect(l.preview_images).toHaveLength(1);
      expect(l.preview_images[0]).toContain('/media/marketplace/');
      expect((await fetchMedia(l.preview_images[0])).status).toBe(200);
      const got = await api(server).get(`/marketplace/${l.id}`).set(buyer.auth);
      expect(got.status).toBe(200);
      expect(got.body.listing).toEqual(l);
    });

    it('computes price_credits = ceil(price × rate) for each currency', async () => {
      const cases: Array<[number, string, number]> = [[12.5, 'credits', 13], [1, 'EUR', 11], [0.01, 'GBP', 1], [1_000_000, 'GBP', 13_000_000]];
      for (const [price, currency, credits] of cases) {
        const l = await listCharacter(seller, { price, currency });
        expect(l.price_credits).toBe(credits);
      }
    });

    it('refuses invalid input with 400 validation_failed', async () => {
      const characterId = await newCharacter(seller);
      const good = { character_id: characterId, price: 5, currency: 'credits', license_type: 'personal' };
      const bad: Array<Record<string, unknown>> = [
        { ...good, character_id: undefined },
        { ...good, price: 0 },
        { ...good, price: -1 },
        { ...good, price: 1_000_000.01 },
        { ...good, price: 1.234 },
        { ...good, price: '5' },
        { ...good, currency: 'JPY' },
        { ...good, currency: undefined },
        { ...good, license_type: 'lifetime' },
        { ...good, status: 'sold' },
        { ...good, status: 'removed' },
        { ...good, status: 'published' },
        { ...good, preview_images: Array.from({ length: 11 }, (_, i) => `https://cdn.example.com/${i}.png`) },
        { ...good, preview_images: ['ftp://cdn.example.com/a.png'] },
        { ...good, preview_images: 'https://cdn.example.com/a.png' },
        { ...good, description: 'x'.repeat(5001) },
        { ...good, title: '' },
        { ...good, seller_workspace_id: 'ws_x' },
      ];
      for (const body of bad) {
        const res = await createListing(seller, body);
        expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code: 'validation_failed' });
      }
      const ok = await createListing(seller, { ...good, preview_images: Array.from({ length: 10 }, (_, i) => `https://cdn.example.com/${i}.png`), description: 'x'.repeat(5000), status: 'draft' });
      expect(ok.status).toBe(201);
      expect(ok.body.listing).toMatchObject({ status: 'draft', price_credits: 5 });
    });

    it('answers 404 for a foreign, missing or malformed character and 409 for a second live listing', async () => {
      const foreign = await newCharacter(buyer);
      expect((await createListing(seller, { character_id: foreign, price: 5, currency: 'credits', license_type: 'personal' })).status).toBe(404);
      expect((await createListing(seller, { character_id: missingId('char'), price: 5, currency: 'credits', license_type: 'personal' })).status).toBe(404);
      expect((await createListing(seller, { character_id: 'mkt_nope', price: 5, currency: 'credits', license_type: 'personal' })).status).toBe(404);
      const l = await listCharacter(seller, { status: 'paused' });
      const again = await createListing(seller, { character_id: l.character_id, price: 7, currency: 'credits', license_type: 'personal' });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('listing_exists');
      // Once removed, the character may be listed again.
      expect((await api(server).delete(`/marketplace/listings/${l.id}`).set(seller.auth)).status).toBe(204);
      expect((await createListing(seller, { character_id: l.character_id, price: 7, currency: 'credits', license_type: 'personal' })).status).toBe(201);
    });

    it('shows active listings to anyone, the others to their seller only, removed ones to nobody', async () => {
      const draft = await listCharacter(seller, { status: 'draft' });
      expect((await api(server).get(`/marketplace/${draft.id}`).set(seller.auth)).status).toBe(200);
      expect((await api(server).get(`/marketplace/${draft.id}`).set(buyer.auth)).status).toBe(404);
      expect((await api(server).get(`/marketplace/${missingId('mkt')}`).set(buyer.auth)).status).toBe(404);
      expect((await api(server).get('/marketplace/char_01ARZ3NDEKTSV4RRFFQ69G5FAV').set(buyer.auth)).status).toBe(404);
      expect((await api(server).delete(`/marketplace/listings/${draft.id}`).set(seller.auth)).status).toBe(204);
      expect((await api(server).get(`/marketplace/${draft.id}`).set(seller.auth)).status).toBe(404);
    });

    it('updates with PUT: price_credits follows, statuses the seller may set, 404 for others, 409 once sold', async () => {
      const l = await listCharacter(seller, { price: 10, currency: 'credits' });
      const put = (user: TestUser, id: string, body: Record<string, unknown>) => api(server).put(`/marketplace/listings/${id}`).set(user.auth).send(body);
      const res = await put(seller, l.id, { price: 2.5, currency: 'USD', title: 'New title', status: 'paused', preview_images: ['https://cdn.example.com/p.png'] });
      expect(res.status).toBe(200);
      expect(res.body.listing).toMatchObject({ id: l.id, price: 2.5, currency: 'USD', price_credits: 25, title: 'New title', status: 'paused', preview_images: ['https://cdn.example.com/p.png'] });
      expect(new Date(res.body.listing.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(l.updated_at).getTime());
      expect((await put(seller, l.id, { status: 'active' })).body.listing.status).toBe('active');
      expect((await put(seller, l.id, { status: 'sold' })).status).toBe(400);
      expect((await put(seller, l.id, { character_id: l.character_id })).status).toBe(400);
      expect((await put(seller, l.id, { price: 0 })).status).toBe(400);
      expect((await put(buyer, l.id, { price: 1 })).status).toBe(404);
      expect((await put(seller, missingId('mkt'), { price: 1 })).status).toBe(404);
      expect((await api(server).delete(`/marketplace/listings/${l.id}`).set(buyer.auth)).status).toBe(404);

      const exclusive = await listCharacter(seller, { license_type: 'exclusive' });
      expect((await buy(await fresh(100), exclusive.id)).status).toBe(201);
      const late = await put(seller, exclusive.id, { price: 99 });
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ code: 'invalid_state_transition', details: { from: 'sold', action: 'update' } });
    });

    it('answers 401 session_required to an API key on every marketplace route', async () => {
      const l = await listCharacter(seller);
      const key = { Authorization: `Bearer ${sellerKey}` };
      const calls = [
        api(server).get('/marketplace').set(key),
        api(server).get(`/marketplace/${l.id}`).set(key),
        api(server).get('/marketplace/my-listings').set(key),
        api(server).get('/marketplace/my-purchases').set(key),
        api(server).post('/marketplace/listings').set(key).send({ character_id: l.character_id, price: 1, currency: 'credits', license_type: 'personal' }),
        api(server).put(`/marketplace/listings/${l.id}`).set(key).send({ price: 2 }),
        api(server).delete(`/marketplace/listings/${l.id}`).set(key),
        api(server).post(`/marketplace/${l.id}/purchase`).set(key),
        api(server).post(`/marketplace/${l.id}/reviews`).set(key).send({ rating: 5 }),
      ];
      const answers = await Promise.all(calls);
      answers.forEach((res, i) => expect({ i, status: res.status, code: res.body.code }).toEqual({ i, status: 401, code: 'session_required' }));
      expect((await api(server).get('/marketplace')).status).toBe(401);
    });
  });

  describe('browse', () => {
    let niche: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      const other = await fresh(0);
      niche = `knitting${Date.now().toString(36)}`;
      const make = async (user: TestUser, key: string, body: Record<string, unknown>, character: Record<string, unknown> = {}) => {
        ids[key] = (await listCharacter(user, body, { niche, ...character })).id;
      };
      await make(seller, 'cheap', { price: 5, title: 'Cozy wool scarves', description: 'Chunky knits for winter evenings' });
      await make(seller, 'mid', { price: 50, title: 'Sock patterns daily', description: 'Heel turns and cables' });
      await make(other, 'dear', { price: 500, title: 'Luxury cashmere', description: 'Fine lace shawls and cables' });
      await make(other, 'hidden', { price: 20, status: 'paused', title: 'Paused wool listing' });
    });

    const browse = (query: string) => api(server).get(`/marketplace?${query}`).set(buyer.auth);
    const idsOf = (res: { body: { listings: Array<{ id: string }> } }) => res.body.listings.map((l) => l.id);

    it('lists active listings only, newest first, with paging', async () => {
      const res = await browse(`niche=${niche}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page: 1, page_size: 20, total: 3 });
      expect(idsOf(res)).toEqual([ids.dear, ids.mid, ids.cheap]);
      const p2 = await browse(`niche=${niche.toUpperCase()}&page=2&page_size=2`);
      expect(p2.body).toMatchObject({ page: 2, page_size: 2, total: 3 });
      expect(idsOf(p2)).toEqual([ids.cheap]);
      const past = await browse(`niche=${niche}&page=9&page_size=2`);
      expect(past.body).toMatchObject({ listings: [], page: 9, total: 3 });
      // Browse, the detail page (both built by the database) and the create answer agree field for field.
      const detail = await api(server).get(`/marketplace/${ids.mid}`).set(buyer.auth);
      expect(res.body.listings[1]).toEqual(detail.body.listing);
      const all = await browse('');
      expect(all.body.total).toBeGreaterThanOrEqual(3);
      expect(all.body.listings.every((l: { status: string }) => l.status === 'active')).toBe(true);
    });

    it('searches title, niche and description with q', async () => {
      expect(idsOf(await browse(`q=cables&niche=${niche}`)).sort()).toEqual([ids.mid, ids.dear].sort());
      expect(idsOf(await browse('q=evening'))).toEqual([ids.cheap]);
      expect(idsOf(await browse(`q=${niche}`)).sort()).toEqual([ids.cheap, ids.mid, ids.dear].sort());
      expect(idsOf(await browse('q="lace shawls"'))).toEqual([ids.dear]);
      expect((await browse('q=zzzunmatched')).body).toMatchObject({ listings: [], total: 0 });
      expect((await browse("q=%27%3B%20drop%20table%20x")).status).toBe(200);
    });

    it('filters by price_credits range and sorts by price', async () => {
      const res = await browse(`niche=${niche}&min_price=5&max_price=50&sort=price_desc`);
      expect(idsOf(res)).toEqual([ids.mid, ids.cheap]);
      expect(res.body.total).toBe(2);
      expect(idsOf(await browse(`niche=${niche}&sort=price_asc`))).toEqual([ids.cheap, ids.mid, ids.dear]);
      expect(idsOf(await browse(`niche=${niche}&min_price=51`))).toEqual([ids.dear]);
    });

    it('refuses bad queries with 400', async () => {
      for (const q of ['page_size=101', 'page=0', 'sort=cheapest', 'min_price=-1', 'min_price=abc', 'rating=6', 'min_price=10&max_price=5', 'colour=red', `q=${'x'.repeat(201)}`]) {
        const res = await browse(q);
        expect({ q, status: res.status, code: res.body.code }).toEqual({ q, status: 400, code: 'validation_failed' });
      }
      expect((await browse('page_size=100')).status).toBe(200);
    });

    it('filters and sorts by rating, and sorts popular by sales', async () => {
      const b1 = await fresh(1000);
      const b2 = await fresh(1000);
      for (const b of [b1, b2]) expect((await buy(b, ids.mid)).status).toBe(201);
      expect((await buy(b1, ids.dear)).status).toBe(201);
      const review = (u: TestUser, id: string, rating: number) => api(server).post(`/marketplace/${id}/reviews`).set(u.auth).send({ rating });
      expect((await review(b1, ids.mid, 5)).status).toBe(201);
      expect((await review(b2, ids.mid, 4)).status).toBe(201);
      expect((await review(b1, ids.dear, 3)).status).toBe(201);
      const rated = await browse(`niche=${niche}&rating=4`);
      expect(idsOf(rated)).toEqual([ids.mid]);
      expect(rated.body.listings[0]).toMatchObject({ rating: 4.5, rating_count: 2, sales_count: 2 });
      expect(idsOf(await browse(`niche=${niche}&sort=rating`))).toEqual([ids.mid, ids.dear, ids.cheap]);
      expect(idsOf(await browse(`niche=${niche}&sort=popular`))).toEqual([ids.mid, ids.dear, ids.cheap]);
    });
  });

  describe('purchase', () => {
    it('charges the buyer, pays the seller 80%, records it and clones the frozen template', async () => {
      const characterId = await newCharacter(seller, {
        name: 'Ava Stone', niche: 'food', appearance: { age_range: '25-30', aesthetic: 'boho' }, identity: { location: 'Lisbon', occupation: 'chef' },
        personality: { tone: 'warm' }, style: { presets: ['film'] }, settings: { autopilot: true }, talking_head_enabled: true,
        reference_images: ['https://cdn.example.com/ext.png'],
      });
      await api(server).post(`/characters/${characterId}/reference-images`).set(seller.auth).attach('file', await makePng(2), { filename: 'a.png', contentType: 'image/png' });
      const listing = (await createListing(seller, { character_id: characterId, price: 99, currency: 'credits', license_type: 'personal' })).body.listing;
      // Edits after listing do not reach buyers until the seller updates the listing.
      await api(server).patch(`/characters/${characterId}`).set(seller.auth).send({ name: 'Edited name', personality: { tone: 'cold' } });

      const b = await fresh(150);
      const [before, sellerBefore] = [await books(b), await books(seller)];
      const res = await buy(b, listing.id);
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['character', 'credits_balance', 'purchase']);
      expect(res.body.purchase).toEqual({
        id: expect.stringMatching(/^pur_[0-9A-Z]{26}$/), listing_id: listing.id, character_id: res.body.character.id,
        price_credits: 99, license_type: 'personal', created_at: expect.any(String),
      });
      expect(res.body.credits_balance).toBe(before.balance - 99);
      const clone = res.body.character;
      expect(clone).toMatchObject({
        name: 'Ava Stone', niche: 'food', appearance: { age_range: '25-30', aesthetic: 'boho' }, identity: { location: 'Lisbon', occupation: 'chef' },
        personality: { tone: 'warm' }, style: { presets: ['film'] }, autopilot: true, talking_head_enabled: true,
        content_count: 0, is_default: false, lora_training_status: 'none',
      });
      expect(clone.id).not.toBe(characterId);
      expect(clone.reference_images).toHaveLength(2);
      expect(clone.reference_images[0]).toBe('https://cdn.example.com/ext.png');
      expect(clone.reference_images[1]).toContain(`/media/characters/${clone.id}/`);
      expect((await fetchMedia(clone.reference_images[1])).status).toBe(200);

      const after = await books(b);
      expect(after.balance).toBe(before.balance - 99);
      expect(after.characters).toEqual([...before.characters, clone.id].sort());
      expect(after.purchases).toBe(1);
      expect(after.ledger[0]).toMatchObject({ amount: -99, reason: 'marketplace_purchase', ref_type: 'marketplace_purchase', ref_id: res.body.purchase.id });
      expectConsistent(after);
      const sellerAfter = await books(seller);
      expect(sellerAfter.balance).toBe(sellerBefore.balance + 79);
      expect(sellerAfter.ledger[0]).toMatchObject({ amount: 79, reason: 'marketplace_sale', ref_type: 'marketplace_purchase', ref_id: res.body.purchase.id });
      expectConsistent(sellerAfter);

      const lib = await api(server).get('/marketplace/my-purchases').set(b.auth);
      expect(lib.body).toMatchObject({ page: 1, page_size: 20, total: 1 });
      expect(lib.body.purchases[0]).toMatchObject({ ...res.body.purchase, listing: { id: listing.id, sales_count: 1 } });
      const mine = await api(server).get('/marketplace/my-listings').set(seller.auth);
      expect(mine.status).toBe(200);
      expect(mine.body.listings.find((l: { id: string }) => l.id === listing.id)).toMatchObject({ sales_count: 1, credits_earned: 79 });
      expect(mine.body.summary.credits_earned).toBeGreaterThanOrEqual(79);
      expect(mine.body.listings.every((l: { seller_workspace_id: string }) => l.seller_workspace_id === seller.workspace.id)).toBe(true);

      // The seller updates the listing: now buyers receive the edited character.
      expect((await api(server).put(`/marketplace/listings/${listing.id}`).set(seller.auth).send({})).status).toBe(200);
      const later = await buy(await fresh(150), listing.id);
      expect(later.body.character).toMatchObject({ name: 'Edited name', personality: { tone: 'cold' } });
      expect((await fetchMedia(later.body.character.reference_images[1])).status).toBe(200);
    });

    it('still sells the template after the seller deletes the character', async () => {
      const characterId = await newCharacter(seller, { name: 'Gone Soon' });
      await api(server).post(`/characters/${characterId}/reference-images`).set(seller.auth).attach('file', await makePng(3), { filename: 'a.png', contentType: 'image/png' });
      const listing = (await createListing(seller, { character_id: characterId, price: 3, currency: 'credits', license_type: 'personal' })).body.listing;
      expect((await api(server).delete(`/characters/${characterId}`).set(seller.auth)).status).toBe(204);
      const res = await buy(await fresh(10), listing.id);
      expect(res.status).toBe(201);
      expect(res.body.character.name).toBe('Gone Soon');
      expect((await fetchMedia(res.body.character.reference_images[0])).status).toBe(200);
      // An update keeps the last template when the character no longer exists.
      expect((await api(server).put(`/marketplace/listings/${listing.id}`).set(seller.auth).send({ price: 4 })).status).toBe(200);
      expect((await buy(await fresh(10), listing.id)).body.character.name).toBe('Gone Soon');
    });

    it('sells an exclusive listing once, then marks it sold', async () => {
      const listing = await listCharacter(seller, { license_type: 'exclusive', price: 20 });
      const first = await fresh(100);
      expect((await buy(first, listing.id)).status).toBe(201);
      const seen = await api(server).get(`/marketplace/${listing.id}`).set(seller.auth);
      expect(seen.body.listing).toMatchObject({ status: 'sold', sales_count: 1 });
      expect((await api(server).get(`/marketplace/${listing.id}`).set(first.auth)).status).toBe(404);
      await expectRefused(await fresh(100), listing.id, 409, 'listing_unavailable');
    });

    it('refuses each failure with its code and leaves balance, ledger, purchases and characters unchanged', async () => {
      const listing = await listCharacter(seller, { price: 100 });
      await expectRefused(buyer, missingId('mkt'), 404, 'not_found');
      await expectRefused(buyer, 'mkt_bad', 404, 'not_found');
      await expectRefused(seller, listing.id, 409, 'cannot_purchase_own_listing');

      const paused = await listCharacter(seller, { status: 'paused' });
      await expectRefused(buyer, paused.id, 409, 'listing_unavailable');
      const draft = await listCharacter(seller, { status: 'draft' });
      await expectRefused(buyer, draft.id, 409, 'listing_unavailable');
      const removed = await listCharacter(seller);
      await api(server).delete(`/marketplace/listings/${removed.id}`).set(seller.auth);
      await expectRefused(buyer, removed.id, 409, 'listing_unavailable');

      const rich = await fresh(1000);
      expect((await buy(rich, listing.id)).status).toBe(201);
      await expectRefused(rich, listing.id, 409, 'already_purchased');

      const full = await fresh(1000, 'starter');
      for (let i = 0; i < 3; i++) await newCharacter(full);
      const limited = await expectRefused(full, listing.id, 403, 'character_limit_reached');
      expect(limited.body.details).toMatchObject({ plan: 'starter', limit: 3, count: 3 });

      const poor = await fresh(0, 'starter');
      const short = await expectRefused(poor, listing.id, 402, 'insufficient_credits');
      expect(short.body.details).toMatchObject({ required: 100, balance: 50, shortfall: 50 });
    });

    it('checks the character limit before the credits', async () => {
      const listing = await listCharacter(seller, { price: 500 });
      const both = await fresh(0, 'starter');
      for (let i = 0; i < 3; i++) await newCharacter(both);
      await expectRefused(both, listing.id, 403, 'character_limit_reached');
    });

    it('keeps the clones of buyers when the listing is removed', async () => {
      const listing = await listCharacter(seller);
      const b = await fresh(20);
      const bought = await buy(b, listing.id);
      expect((await api(server).delete(`/marketplace/listings/${listing.id}`).set(seller.auth)).status).toBe(204);
      expect((await api(server).get(`/characters/${bought.body.character.id}`).set(b.auth)).status).toBe(200);
      const lib = await api(server).get('/marketplace/my-purchases').set(b.auth);
      expect(lib.body.purchases[0].listing).toMatchObject({ id: listing.id, status: 'removed' });
      expect((await api(server).get('/marketplace/my-listings').set(seller.auth)).body.listings.some((l: { id: string }) => l.id === listing.id)).toBe(false);
    });
  });

  describe('reviews', () => {
    it('lets a buyer review once, feeding the rating; refuses others', async () => {
      const listing = await listCharacter(seller);
      const b = await fresh(20);
      const review = (u: TestUser, body: Record<string, unknown>, id = listing.id) => api(server).post(`/marketplace/${id}/reviews`).set(u.auth).send(body);
      const notYet = await review(b, { rating: 5 });
      expect({ status: notYet.status, code: notYet.body.code }).toEqual({ status: 403, code: 'forbidden' });
      expect((await review(seller, { rating: 5 })).status).toBe(403);
      await buy(b, listing.id);
      for (const body of [{ rating: 0 }, { rating: 6 }, { rating: 4.5 }, { rating: '5' }, {}, { rating: 5, comment: 'x'.repeat(2001) }, { rating: 5, extra: 1 }]) {
        expect((await review(b, body)).status).toBe(400);
      }
      const res = await review(b, { rating: 4, comment: '  Lovely  ' });
      expect(res.status).toBe(201);
      expect(res.body.review).toEqual({ id: expect.stringMatching(/^rev_/), listing_id: listing.id, rating: 4, comment: 'Lovely', created_at: expect.any(String) });
      expect(res.body.listing).toMatchObject({ id: listing.id, rating: 4, rating_count: 1 });
      const again = await review(b, { rating: 1 });
      expect(again.status).toBe(409);
      expect((await api(server).get(`/marketplace/${listing.id}`).set(b.auth)).body.listing).toMatchObject({ rating: 4, rating_count: 1 });
      expect((await review(b, { rating: 5 }, missingId('mkt'))).status).toBe(404);
      const draft = await listCharacter(seller, { status: 'draft' });
      expect((await review(b, { rating: 5 }, draft.id)).status).toBe(404);
    });
  });
});
