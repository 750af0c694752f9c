import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { api, grantCredits, loginAdmin, registerUser, root, setPlan, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';

/** `Idempotency-Key` on POST routes, exercised through the marketplace routes that opt in. */
describe('idempotency keys', () => {
  let backing: Backing;
  let server: TestServer;
  let admin: { Authorization: string };
  let seller: TestUser;
  let n = 0;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '10' });
    admin = await loginAdmin(server);
    seller = await registerUser(server);
    await setPlan(server, admin, seller.workspace.id, 'agency');
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  const key = () => `retry-${Date.now()}-${++n}`;
  const buyer = async (credits = 0): Promise<TestUser> => {
    const u = await registerUser(server);
    await setPlan(server, admin, u.workspace.id, 'agency');
    if (credits > 0) await grantCredits(server, admin, u.workspace.id, credits);
    return u;
  };
  const newCharacter = async () => (await api(server).post('/characters').set(seller.auth).send({ name: 'Kit', niche: 'retro' })).body.character.id as string;
  const list = async (price = 20) => {
    const res = await api(server).post('/marketplace/listings').set(seller.auth).send({ character_id: await newCharacter(), price, currency: 'credits', license_type: 'personal' });
    return res.body.listing as { id: string };
  };
  const buy = (u: TestUser, id: string, k?: string) => {
    const req = api(server).post(`/marketplace/${id}/purchase`).set(u.auth);
    return k === undefined ? req : req.set('Idempotency-Key', k);
  };
  const state = async (u: TestUser) => ({
    balance: (await api(server).get('/billing/credits').set(u.auth)).body.balance,
    purchases: (await api(server).get('/marketplace/my-purchases').set(u.auth)).body.total,
    characters: (await api(server).get('/characters').set(u.auth)).body.total,
  });

  it('the same key sent twice yields one purchase and two identical answers', async () => {
    const listing = await list();
    const b = await buyer(0);
    const before = await state(b);
    const k = key();
    const first = await buy(b, listing.id, k);
    const second = await buy(b, listing.id, k);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.text).toBe(first.text);
    expect(await state(b)).toEqual({ balance: before.balance - 20, purchases: 1, characters: before.characters + 1 });
    // Without the key, the retry is a new attempt, refused as such.
    expect((await buy(b, listing.id)).body.code).toBe('already_purchased');
  });

  it('concurrent requests under one key run the work once; the others replay or get 409 idempotency_in_progress', async () => {
    const listing = await list();
    const b = await buyer(0);
    const k = key();
    const answers = await Promise.all(Array.from({ length: 8 }, () => buy(b, listing.id, k)));
    const originals = answers.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(originals).toHaveLength(1);
    for (const r of answers.filter((x) => x !== originals[0])) {
      if (r.status === 201) {
        expect(r.headers['idempotent-replayed']).toBe('true');
        expect(r.text).toBe(originals[0].text);
      } else {
        expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: 'idempotency_in_progress' });
      }
    }
    expect((await state(b)).purchases).toBe(1);
  });

  it('refuses the same key with a different request: 422 idempotency_key_reused', async () => {
    const k = key();
    const character = await newCharacter();
    const body = { character_id: character, price: 5, currency: 'credits', license_type: 'personal' };
    const first = await api(server).post('/marketplace/listings').set(seller.auth).set('Idempotency-Key', k).send(body);
    expect(first.status).toBe(201);
    const sameAgain = await api(server).post('/marketplace/listings').set(seller.auth).set('Idempotency-Key', k).send({ license_type: 'personal', currency: 'credits', price: 5, character_id: character });
    expect(sameAgain.status).toBe(201);
    expect(sameAgain.headers['idempotent-replayed']).toBe('true');
    expect(sameAgain.body.listing.id).toBe(first.body.listing.id);
    const other = await api(server).post('/marketplace/listings').set(seller.auth).set('Idempotency-Key', k).send({ ...body, price: 6 });
    expect({ status: other.status, code: other.body.code }).toEqual({ status: 422, code: 'idempotency_key_reused' });
    // The same key on another route is another request too.
    const listing = await list();
    const elsewhere = await api(server).post(`/marketplace/${listing.id}/purchase`).set(seller.auth).set('Idempotency-Key', k);
    expect(elsewhere.status).toBe(422);
  });

  it('keeps nothing from a failed first attempt: the retry under the same key runs again', async () => {
    const listing = await list(100);
    const b = await buyer(0);
    const k = key();
    const poor = await buy(b, listing.id, k);
    expect({ status: poor.status, code: poor.body.code }).toEqual({ status: 402, code: 'insufficient_credits' });
    await grantCredits(server, admin, b.workspace.id, 50);
    const retried = await buy(b, listing.id, k);
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    const replay = await buy(b, listing.id, k);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(retried.text);
    // A body that fails validation releases its key too.
    const k2 = key();
    expect((await api(server).post('/marketplace/listings').set(seller.auth).set('Idempotency-Key', k2).send({ price: -1 })).status).toBe(400);
    const fixed = await api(server).post('/marketplace/listings').set(seller.auth).set('Idempotency-Key', k2).send({ character_id: await newCharacter(), price: 1, currency: 'credits', license_type: 'personal' });
    expect(fixed.status).toBe(201);
  });

  it('scopes keys per workspace', async () => {
    const listing = await list();
    const [b1, b2] = [await buyer(0), await buyer(0)];
    const k = key();
    const [r1, r2] = [await buy(b1, listing.id, k), await buy(b2, listing.id, k)];
    expect([r1.status, r2.status]).toEqual([201, 201]);
    expect(r2.headers['idempotent-replayed']).toBeUndefined();
    expect(r1.body.purchase.id).not.toBe(r2.body.purchase.id);
  });

  it('works on reviews: a replayed review is not a second one', async () => {
    const listing = await list();
    const b = await buyer(0);
    await buy(b, listing.id);
    const k = key();
    const review = () => api(server).post(`/marketplace/${listing.id}/reviews`).set(b.auth).set('Idempotency-Key', k).send({ rating: 5 });
    const [first, second] = [await review(), await review()];
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.text).toBe(first.text);
    expect((await api(server).get(`/marketplace/${listing.id}`).set(b.auth)).body.listing.rating_count).toBe(1);
  });

  it('refuses a malformed key with 400 and does nothing', async () => {
    const listing = await list();
    const b = await buyer(0);
    for (const bad of ['', 'x'.repeat(256)]) {
      const res = await buy(b, listing.id, bad);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'validation_failed' });
    }
    expect((await state(b)).purchases).toBe(0);
    expect((await buy(b, listing.id, 'x'.repeat(255))).status).toBe(201);
  });

  it('documents the header and its errors on the routes that take it', async () => {
    const docs = await root(server).get('/api/docs-json');
    expect(docs.status).toBe(200);
    for (const [path, method] of [['/marketplace/{id}/purchase', 'post'], ['/marketplace/listings', 'post'], ['/marketplace/{id}/reviews', 'post']]) {
      const op = docs.body.paths[path][method];
      expect(op.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['409', '422']));
    }
    expect(Object.keys(docs.body.paths['/marketplace/{id}/purchase'].post.responses)).toEqual(expect.arrayContaining(['201', '401', '402', '403', '404']));
  });

  it('keeps a key for at least 24 hours', async () => {
    const url = backing.env.DATABASE_URL;
    if (!url) return; // the embedded database is private to the server process
    const listing = await list();
    const b = await buyer(0);
    const k = key();
    await buy(b, listing.id, k);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT status, response_status, extract(epoch FROM expires_at - created_at) AS ttl FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`,
        [b.workspace.id, k],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: 'completed', response_status: 201 });
      expect(Number(rows[0].ttl)).toBeGreaterThanOrEqual(24 * 3600);
    } finally {
      await client.end();
    }
  });
});
