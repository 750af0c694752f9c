import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { databaseClient } from '../helpers/database.js';
import { E2E_MODE } from '../helpers/env.js';
import { inviteAndAccept, switchTo } from '../helpers/invitations.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';

/**
 * Monetization (docs/monetization.md): affiliate links, the public redirect and its click counting,
 * revenue entries and the summary, and the analytics overview's earnings. With PostgreSQL + Redis
 * the API only counts (in Redis) and a separate worker flushes; embedded, the API counts in memory
 * and flushes itself.
 */
type Body = Record<string, any>;
type Auth = { Authorization: string };

const BROWSER = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const BOTS = ['', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'facebookexternalhit/1.1', 'Slackbot-LinkExpanding 1.0', 'curl/8.4.0', 'WhatsApp/2.23.20.0'];
const FLUSH = { MONETIZATION_CLICK_FLUSH_MS: '100' };
const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);

describe('monetization', () => {
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let alice: TestUser;
  let bob: TestUser;
  let viewer: Auth;
  let charA: string;
  let charB: string;
  let bobChar: string;

  const http = () => api(server);
  const createLink = (auth: Auth, character: string, body: Body) => http().post(`/characters/${character}/links`).set(auth).send(body);
  const linksOf = async (character: string): Promise<Body[]> => {
    const res = await http().get(`/characters/${character}/links?page_size=100`).set(alice.auth);
    expect(res.status).toBe(200);
    return res.body.links as Body[];
  };
  const clickCount = async (character: string, id: string): Promise<number> => (await linksOf(character)).find((l) => l.id === id)!.click_count as number;
  const click = (code: string, ua: string) => http().get(`/l/${code}`).set('User-Agent', ua).redirects(0);

  beforeAll(async () => {
    backing = await createBacking();
    const env = { AUTH_RATE_LIMIT_PER_MINUTE: '1000', OPEN_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '50', ...FLUSH };
    if (E2E_MODE === 'services') {
      server = await startServer(backing, { ...env, RUN_JOBS_IN_API: 'false' });
      worker = await startWorker(backing, FLUSH);
    } else {
      server = await startServer(backing, env);
    }
    const admin = await loginAdmin(server);
    [alice, bob] = await Promise.all([registerUser(server), registerUser(server)]);
    await setPlan(server, admin, alice.workspace.id, 'agency');
    const made = await Promise.all([
      http().post('/characters').set(alice.auth).send({ name: 'Ava', niche: 'fashion' }),
      http().post('/characters').set(alice.auth).send({ name: 'Bea', niche: 'fitness' }),
      http().post('/characters').set(bob.auth).send({ name: 'Cal', niche: 'travel' }),
    ]);
    for (const r of made) expect(r.status).toBe(201);
    [charA, charB, bobChar] = made.map((r) => r.body.character.id as string);
    const member = await registerUser(server);
    await inviteAndAccept(server, alice.auth, alice.workspace.id, member, 'viewer');
    viewer = await switchTo(server, member.auth, alice.workspace.id);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await worker?.stop();
    await backing?.cleanup();
  });

  describe('links', () => {
    it('creates a link with a generated shortcode and one with a chosen shortcode, lists them newest first', async () => {
      const generated = await createLink(alice.auth, charA, { platform: 'instagram', destination_url: 'https://shop.example.com/item/1?ref=ava' });
      expect(generated.status).toBe(201);
      const link = generated.body.link as Body;
      expect(link).toMatchObject({ character_id: charA, platform: 'instagram', destination_url: 'https://shop.example.com/item/1?ref=ava', click_count: 0, revenue: 0 });
      expect(link.id).toMatch(/^lnk_[0-9A-Z]{26}$/);
      expect(link.shortcode).toMatch(/^[0-9A-Za-z]{8}$/);
      expect(link.short_url).toBe(`${server.url}/l/${link.shortcode}`);

      const chosen = await createLink(alice.auth, charA, { destination_url: 'http://example.org/a', shortcode: 'ava-spring_1' });
      expect([chosen.status, chosen.body.link.platform, chosen.body.link.shortcode]).toEqual([201, null, 'ava-spring_1']);

      const page = await http().get(`/characters/${charA}/links?page=1&page_size=1`).set(viewer);
      expect([page.status, page.body.total, page.body.page_size, page.body.links.map((l: Body) => l.id)]).toEqual([200, 2, 1, [chosen.body.link.id]]);
    });

    it('updates and deletes a link; a deleted shortcode no longer redirects', async () => {
      const made = await createLink(alice.auth, charA, { platform: 'x', destination_url: 'https://one.example.com/', shortcode: 'to-change' });
      const id = made.body.link.id as string;
      expect((await click('to-change', BROWSER)).status).toBe(302);
      const patched = await http().patch(`/links/${id}`).set(alice.auth).send({ platform: null, destination_url: 'https://two.example.com/x', shortcode: 'changed' });
      expect(patched.status).toBe(200);
      expect(patched.body.link).toMatchObject({ id, platform: null, destination_url: 'https://two.example.com/x', shortcode: 'changed' });
      expect((await click('to-change', BROWSER)).status).toBe(404);
      const moved = await click('changed', BROWSER);
      expect([moved.status, moved.headers.location]).toEqual([302, 'https://two.example.com/x']);
      const empty = await http().patch(`/links/${id}`).set(alice.auth).send({});
      expect([empty.status, empty.body.code]).toEqual([400, 'validation_failed']);
      expect((await http().delete(`/links/${id}`).set(alice.auth)).status).toBe(204);
      expect((await click('changed', BROWSER)).status).toBe(404);
      const again = await http().patch(`/links/${id}`).set(alice.auth).send({ platform: 'x' });
      expect([again.status, again.body.code]).toEqual([404, 'not_found']);
    });

    // Only where transactions overlap: the embedded database serves one connection, so a flush and a
    // deletion never meet there (and a row held from outside would stop the whole server).
    if (E2E_MODE === 'services') it('deletes a link while a flush writes its clicks: neither waits on the other in a circle (204), and the other link\'s clicks land', async () => {
      const carol = await registerUser(server);
      const made = await http().post('/characters').set(carol.auth).send({ name: 'Dee', niche: 'food' });
      const char = made.body.character.id as string;
      const links: Body[] = [];
      for (const n of [1, 2]) {
        const res = await createLink(carol.auth, char, { platform: 'instagram', destination_url: `https://shop.example.com/dee/${n}` });
        expect(res.status).toBe(201);
        links.push(res.body.link as Body);
      }
      // A flush writes its day cells in link order: the first link's cell, then the second's.
      const [first, second] = links.sort((a, b) => ((a.id as string) < (b.id as string) ? -1 : 1));
      const counts = async () => Object.fromEntries(((await http().get(`/characters/${char}/links`).set(carol.auth)).body.links as Body[]).map((l) => [l.id, l.click_count]));
      // One flush gives both links today's cell, so the next one adds to cells that exist.
      for (const l of [first, second]) expect((await click(l.shortcode as string, BROWSER)).status).toBe(302);
      await waitFor(async () => ((c) => c[first.id] === 1 && c[second.id] === 1)(await counts()), 10_000, 'the first flush');

      const holder = await databaseClient(backing);
      const watcher = await databaseClient(backing);
      const waitingOn = async (query: string) =>
        Number((await watcher.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`, [query])).rows[0].n) > 0;
      try {
        // Holding the second link's cell stops the next flush after it wrote the first link's cell.
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM link_clicks_daily WHERE link_id = $1 FOR UPDATE', [second.id]);
        for (const l of [first, second]) expect((await click(l.shortcode as string, BROWSER)).status).toBe(302);
        await waitFor(() => waitingOn('%INSERT INTO link_clicks_daily%'), 10_000, 'the flush to wait for the held cell');
        const deletion = http().delete(`/links/${first.id}`).set(carol.auth).then((res) => res);
        await waitFor(() => waitingOn('DELETE FROM affiliate_links%'), 10_000, 'the deletion to wait');
        // Let the flush go on at once: within the database's deadlock check (1 s), a circle fails the deletion.
        await holder.query('COMMIT');
        expect((await deletion).status).toBe(204);
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        await Promise.all([holder.end(), watcher.end()]);
      }
      await waitFor(async () => (await counts())[second.id] === 2, 10_000, 'the second link\'s clicks');
      expect(Object.keys(await counts())).toEqual([second.id]);
    });

    it.each([
      ['a javascript: URL', { destination_url: 'javascript:alert(1)' }, 'destination_url'],
      ['a data: URL', { destination_url: 'data:text/html,<b>hi</b>' }, 'destination_url'],
      ['an ftp URL', { destination_url: 'ftp://example.com/f' }, 'destination_url'],
      ['our own host', { destination_url: 'http://127.0.0.1:1/api/v1/l/x' }, 'destination_url'],
      ['credentials', { destination_url: 'https://u:p@example.com/' }, 'destination_url'],
      ['a relative URL', { destination_url: '/somewhere' }, 'destination_url'],
      ['a URL over 2048 characters', { destination_url: `https://example.com/${'a'.repeat(2030)}` }, 'destination_url'],
      ['no destination', { platform: 'instagram' }, 'destination_url'],
      ['an unknown platform', { destination_url: 'https://example.com', platform: 'myspace' }, 'platform'],
      ['a short shortcode', { destination_url: 'https://example.com', shortcode: 'ab' }, 'shortcode'],
      ['a shortcode with a slash', { destination_url: 'https://example.com', shortcode: 'a/b/c' }, 'shortcode'],
      ['a long shortcode', { destination_url: 'https://example.com', shortcode: 'a'.repeat(33) }, 'shortcode'],
      ['an unknown field', { destination_url: 'https://example.com', clicks: 5 }, 'clicks'],
    ])('refuses %s with 400 naming the field', async (_what, body, field) => {
      const res = await createLink(alice.auth, charA, body);
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
      expect(JSON.stringify(res.body.details)).toContain(field);
    });

    it('answers 409 for a shortcode any link of the service has, on create and on update', async () => {
      expect((await createLink(alice.auth, charA, { destination_url: 'https://example.com/1', shortcode: 'TakenCode' })).status).toBe(201);
      for (const [auth, character] of [[alice.auth, charA], [alice.auth, charB], [bob.auth, bobChar]] as const) {
        const res = await createLink(auth, character, { destination_url: 'https://example.com/2', shortcode: 'TakenCode' });
        expect([res.status, res.body.code]).toEqual([409, 'shortcode_taken']);
      }
      const other = await createLink(bob.auth, bobChar, { destination_url: 'https://example.com/3', shortcode: 'bobs-code' });
      expect(other.status).toBe(201);
      const clash = await http().patch(`/links/${other.body.link.id}`).set(bob.auth).send({ shortcode: 'TakenCode' });
      expect([clash.status, clash.body.code]).toEqual([409, 'shortcode_taken']);
      // Case matters: a different spelling is a different shortcode.
      expect((await createLink(bob.auth, bobChar, { destination_url: 'https://example.com/4', shortcode: 'takencode' })).status).toBe(201);
    });

    it('answers 404 for another workspace’s character or link, and for missing or malformed ids', async () => {
      const [link] = await linksOf(charA);
      const checks: Array<[string, () => Promise<{ status: number; body: Body }>]> = [
        ['list', () => http().get(`/characters/${charA}/links`).set(bob.auth)],
        ['create', () => createLink(bob.auth, charA, { destination_url: 'https://example.com' })],
        ['update', () => http().patch(`/links/${link.id}`).set(bob.auth).send({ platform: 'x' })],
        ['delete', () => http().delete(`/links/${link.id}`).set(bob.auth)],
        ['clicks', () => http().get(`/links/${link.id}/clicks`).set(bob.auth)],
        ['missing character', () => http().get(`/characters/${missingId('char')}/links`).set(alice.auth)],
        ['missing link', () => http().patch(`/links/${missingId('lnk')}`).set(alice.auth).send({ platform: 'x' })],
        ['malformed link', () => http().delete('/links/nope').set(alice.auth)],
        ['unknown shortcode', () => click('no-such-code', BROWSER)],
        ['impossible shortcode', () => click('a.b', BROWSER)],
      ];
      for (const [what, call] of checks) {
        const res = await call();
        expect([what, res.status, res.body.code]).toEqual([what, 404, 'not_found']);
      }
      expect(await clickCount(charA, link.id as string)).toBe(0);
    });

    it('lets a viewer read but not write (403 insufficient_role)', async () => {
      const [link] = await linksOf(charA);
      expect((await http().get(`/characters/${charA}/links`).set(viewer)).status).toBe(200);
      expect((await http().get(`/links/${link.id}/clicks`).set(viewer)).status).toBe(200);
      const writes = [
        createLink(viewer, charA, { destination_url: 'https://example.com' }),
        http().patch(`/links/${link.id}`).set(viewer).send({ platform: 'x' }),
        http().delete(`/links/${link.id}`).set(viewer),
        http().post(`/characters/${charA}/revenue`).set(viewer).send({ source: 'affiliate', amount: 1 }),
      ];
      for (const res of await Promise.all(writes)) expect([res.status, res.body.code]).toEqual([403, 'insufficient_role']);
    });

    it('records link changes in the audit log', async () => {
      const res = await http().get(`/organizations/${alice.workspace.id}/audit-log?action=link.created`).set(alice.auth);
      expect(res.status).toBe(200);
      expect(res.body.entries.length).toBeGreaterThanOrEqual(3);
      expect(res.body.entries[0]).toMatchObject({ action: 'link.created', target_type: 'affiliate_link', actor_user_id: alice.user.id });
    });
  });

  describe('redirect and click counting', () => {
    let link: Body;

    beforeAll(async () => {
      const res = await createLink(alice.auth, charA, { platform: 'tiktok', destination_url: 'https://store.example.com/p/9?utm_source=ava', shortcode: 'ava-bio' });
      expect(res.status).toBe(201);
      link = res.body.link as Body;
    });

    it('answers 302 to the destination, uncached, without credentials', async () => {
      const res = await click('ava-bio', BROWSER);
      expect([res.status, res.headers.location, res.headers['cache-control']]).toEqual([302, 'https://store.example.com/p/9?utm_source=ava', 'no-store']);
      await waitFor(async () => (await clickCount(charA, link.id as string)) === 1, 15_000, 'the first click flushed');
    });

    it('counts 200 concurrent clicks exactly, and no bot', async () => {
      const answers = await Promise.all([
        ...Array.from({ length: 200 }, () => click('ava-bio', BROWSER)),
        ...BOTS.flatMap((ua) => [click('ava-bio', ua), click('ava-bio', ua)]),
      ]);
      for (const res of answers) expect([res.status, res.headers.location]).toEqual([302, 'https://store.example.com/p/9?utm_source=ava']);
      await waitFor(async () => (await clickCount(charA, link.id as string)) >= 201, 15_000, '201 clicks flushed');
      expect(await clickCount(charA, link.id as string)).toBe(201);
      // Later flushes add only what was clicked since: nothing is counted twice.
      await Promise.all(Array.from({ length: 9 }, () => click('ava-bio', BROWSER)));
      await waitFor(async () => (await clickCount(charA, link.id as string)) >= 210, 15_000, '210 clicks flushed');
      expect(await clickCount(charA, link.id as string)).toBe(210);
    });

    it('keeps a per-day series', async () => {
      const res = await http().get(`/links/${link.id}/clicks`).set(viewer);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ link_id: link.id, to: today(), total: 210 });
      expect(res.body.days).toHaveLength(30);
      expect(res.body.days[29]).toEqual({ date: today(), clicks: 210 });
      const yesterday = new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);
      const past = await http().get(`/links/${link.id}/clicks?from=2024-02-27&to=2024-03-01`).set(alice.auth);
      expect(past.body).toEqual({ link_id: link.id, from: '2024-02-27', to: '2024-03-01', total: 0, days: ['2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01'].map((date) => ({ date, clicks: 0 })) });
      const upToYesterday = await http().get(`/links/${link.id}/clicks?to=${yesterday}`).set(alice.auth);
      expect(upToYesterday.body.total).toBe(0);
      for (const q of ['from=2025-02-02&to=2025-02-01', 'from=2025-02-30', 'from=2024-01-01&to=2025-01-01', 'to=yesterday']) {
        const bad = await http().get(`/links/${link.id}/clicks?${q}`).set(alice.auth);
        expect([q, bad.status, bad.body.code]).toEqual([q, 400, 'validation_failed']);
      }
    });
  });

  describe('revenue', () => {
    const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
    const record = (auth: Auth, character: string, body: Body) => http().post(`/characters/${character}/revenue`).set(auth).send(body);

    it('records entries and refuses bad ones', async () => {
      const link = (await linksOf(charA)).find((l) => l.shortcode === 'ava-bio')!;
      const affiliate = await record(alice.auth, charA, { source: 'affiliate', amount: 1000, currency: 'usd', occurred_at: iso(2 * DAY_MS), note: 'May payout', link_id: link.id });
      expect(affiliate.status).toBe(201);
      expect(affiliate.body.revenue_entry).toMatchObject({ character_id: charA, source: 'affiliate', amount: 1000, currency: 'USD', note: 'May payout', link_id: link.id });
      expect(affiliate.body.revenue_entry.id).toMatch(/^rvn_/);
      const rest = await Promise.all([
        record(alice.auth, charA, { source: 'brand_deal', amount: 5000, occurred_at: iso(10 * DAY_MS) }),
        record(alice.auth, charA, { source: 'subscription', amount: 250 }),
        record(alice.auth, charA, { source: 'brand_deal', amount: 9999, occurred_at: iso(200 * DAY_MS) }),
        record(alice.auth, charB, { source: 'affiliate', amount: 300, currency: 'USD', occurred_at: iso(DAY_MS), note: null, link_id: null }),
        record(alice.auth, charB, { source: 'subscription', amount: 0, occurred_at: iso(3 * DAY_MS) }),
      ]);
      for (const r of rest) expect(r.status).toBe(201);
      expect(rest[1].body.revenue_entry.currency).toBe('USD');
      expect((await linksOf(charA)).find((l) => l.id === link.id)!.revenue).toBe(1000);

      const bobLink = (await http().get(`/characters/${bobChar}/links`).set(bob.auth)).body.links[0] as Body;
      const refusals: Array<[Body, string]> = [
        [{ source: 'affiliate', amount: 1, currency: 'EUR' }, 'currency'],
        [{ source: 'affiliate', amount: 1, currency: 'dollars' }, 'currency'],
        [{ source: 'affiliate', amount: -1 }, 'amount'],
        [{ source: 'affiliate', amount: 1.5 }, 'amount'],
        [{ source: 'affiliate', amount: '100' }, 'amount'],
        [{ source: 'tips', amount: 1 }, 'source'],
        [{ source: 'affiliate', amount: 1, occurred_at: new Date(Date.now() + DAY_MS).toISOString() }, 'occurred_at'],
        [{ source: 'affiliate', amount: 1, occurred_at: 'last week' }, 'occurred_at'],
        [{ source: 'affiliate', amount: 1, note: 'n'.repeat(501) }, 'note'],
        [{ source: 'affiliate', amount: 1, link_id: link.id }, 'link_id'],
        [{ source: 'affiliate', amount: 1, link_id: bobLink.id }, 'link_id'],
        [{ source: 'affiliate', amount: 1, link_id: missingId('lnk') }, 'link_id'],
        [{ source: 'affiliate', amount: 1, extra: true }, 'extra'],
      ];
      for (const [body, field] of refusals) {
        const res = await record(alice.auth, field === 'link_id' && body.link_id === link.id ? charB : charA, body);
        expect([field, res.status, res.body.code]).toEqual([field, 400, 'validation_failed']);
        expect(JSON.stringify(res.body.details)).toContain(field);
      }
      const foreign = await record(bob.auth, charA, { source: 'affiliate', amount: 1 });
      expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
      expect((await http().get(`/characters/${charA}/revenue`).set(bob.auth)).status).toBe(404);
    });

    it('lists a character’s entries newest first, within a range', async () => {
      const all = await http().get(`/characters/${charA}/revenue`).set(viewer);
      expect(all.status).toBe(200);
      expect(all.body.total).toBe(4);
      expect(all.body.revenue_entries.map((e: Body) => e.amount)).toEqual([250, 1000, 5000, 9999]);
      const recent = await http().get(`/characters/${charA}/revenue?from=${encodeURIComponent(iso(30 * DAY_MS))}&page_size=2`).set(alice.auth);
      expect([recent.body.total, recent.body.revenue_entries.map((e: Body) => e.amount)]).toEqual([3, [250, 1000]]);
      const bad = await http().get(`/characters/${charA}/revenue?from=2025-03-01&to=2025-02-01`).set(alice.auth);
      expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
    });

    it('sums per source and character over the last 90 days by default, with clicks', async () => {
      const res = await http().get('/revenue/summary').set(viewer);
      expect(res.status).toBe(200);
      const s = res.body as Body;
      expect(Date.parse(s.to) - Date.parse(s.from)).toBe(90 * DAY_MS);
      expect(s).toMatchObject({ currency: 'USD', total: 6550, by_source: { affiliate: 1300, brand_deal: 5000, subscription: 250 } });
      expect(s.characters).toEqual([
        { character_id: charA, name: 'Ava', total: 6250, by_source: { affiliate: 1000, brand_deal: 5000, subscription: 250 }, clicks: 210 },
        { character_id: charB, name: 'Bea', total: 300, by_source: { affiliate: 300, brand_deal: 0, subscription: 0 }, clicks: 0 },
      ]);
    });

    it('takes a range: entries outside it are left out', async () => {
      const wide = await http().get(`/revenue/summary?from=${encodeURIComponent(iso(365 * DAY_MS))}`).set(alice.auth);
      expect([wide.status, wide.body.total, wide.body.by_source.brand_deal]).toEqual([200, 16549, 14999]);
      const old = await http().get(`/revenue/summary?from=${encodeURIComponent(iso(365 * DAY_MS))}&to=${encodeURIComponent(iso(100 * DAY_MS))}`).set(alice.auth);
      expect([old.body.total, old.body.characters]).toEqual([9999, [{ character_id: charA, name: 'Ava', total: 9999, by_source: { affiliate: 0, brand_deal: 9999, subscription: 0 }, clicks: 0 }]]);
      const week = await http().get(`/revenue/summary?from=${encodeURIComponent(iso(5 * DAY_MS))}`).set(alice.auth);
      expect([week.body.total, week.body.by_source]).toEqual([1550, { affiliate: 1300, brand_deal: 0, subscription: 250 }]);
      const other = await http().get('/revenue/summary').set(bob.auth);
      expect([other.body.total, other.body.characters]).toEqual([0, []]);
      for (const q of ['from=2025-03-01&to=2025-02-01', 'from=2025-01-01T00:00:00Z&to=2025-01-01T00:00:00Z', 'from=2025-02-30', 'to=tomorrow', 'from=2025-01-01T00:00:00']) {
        const bad = await http().get(`/revenue/summary?${q}`).set(alice.auth);
        expect([q, bad.status, bad.body.code]).toEqual([q, 400, 'validation_failed']);
      }
    });

    it('shows revenue and clicks per character in the analytics overview', async () => {
      const all = await http().get('/analytics/overview').set(viewer);
      expect(all.status).toBe(200);
      expect(all.body.earnings).toEqual({
        currency: 'USD',
        revenue: 6550,
        clicks: 210,
        by_character: [{ character_id: charA, revenue: 6250, clicks: 210 }, { character_id: charB, revenue: 300, clicks: 0 }],
      });
      const one = await http().get(`/analytics/overview?character_id=${charB}`).set(alice.auth);
      expect(one.body.earnings).toEqual({ currency: 'USD', revenue: 300, clicks: 0, by_character: [{ character_id: charB, revenue: 300, clicks: 0 }] });
      const before = await http().get('/analytics/overview?from=2024-01-01&to=2024-01-31').set(alice.auth);
      expect(before.body.earnings).toEqual({ currency: 'USD', revenue: 0, clicks: 0, by_character: [] });
    });
  });
});
