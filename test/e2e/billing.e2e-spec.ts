import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, grantCredits, loginAdmin, registerUser, setPlan } from '../helpers/api.js';
import { mailbox } from '../helpers/mail.js';
import { authedSocket } from '../helpers/socket.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';

describe('billing', () => {
  let backing: Backing;
  let server: TestServer;
  let admin: { Authorization: string };

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000' });
    admin = await loginAdmin(server);
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  describe('GET /billing/credits', () => {
    it('answers the balance, plan and character limit', async () => {
      const user = await registerUser(server);
      const res = await api(server).get('/billing/credits').set(user.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ balance: 50, plan: 'starter', character_limit: 3 });
    });

    it('answers 401 without a token and 401 session_required for an API key', async () => {
      expect((await api(server).get('/billing/credits')).status).toBe(401);
      const key = await api(server).get('/billing/credits').set('Authorization', 'Bearer psk_0123456789abcdef0123456789abcdef');
      expect(key.status).toBe(401);
      expect(key.body.code).toBe('session_required');
    });
  });

  describe('GET /billing/ledger', () => {
    it('lists the append-only entries newest first, with paging', async () => {
      const user = await registerUser(server);
      await grantCredits(server, admin, user.workspace.id, 25);
      const res = await api(server).get('/billing/ledger').set(user.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        entries: [
          {
            id: expect.stringMatching(/^led_[0-9A-Z]{26}$/),
            amount: 25,
            balance_after: 75,
            reason: 'e2e grant',
            ref_type: 'admin',
            ref_id: expect.stringMatching(/^user_/),
            created_at: expect.any(String),
          },
          {
            id: expect.stringMatching(/^led_/),
            amount: 50,
            balance_after: 50,
            reason: 'allocation_granted',
            ref_type: 'grant',
            ref_id: 'starter:1',
            created_at: expect.any(String),
          },
        ],
        page: 1,
        page_size: 20,
        total: 2,
      });
      const second = await api(server).get('/billing/ledger?page=2&page_size=1').set(user.auth);
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ page: 2, page_size: 1, total: 2, entries: [{ reason: 'allocation_granted' }] });
    });

    it('shows only the caller\'s own workspace', async () => {
      const a = await registerUser(server);
      const b = await registerUser(server);
      await grantCredits(server, admin, a.workspace.id, 7);
      const res = await api(server).get('/billing/ledger').set(b.auth);
      expect(res.body.total).toBe(1);
      expect(res.body.entries[0].reason).toBe('allocation_granted');
    });

    it.each([['page=0'], ['page_size=101'], ['page_size=abc'], ['sort=asc']])('answers 400 for %s', async (query) => {
      const user = await registerUser(server);
      const res = await api(server).get(`/billing/ledger?${query}`).set(user.auth);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });
  });

  describe('GET /public/credits', () => {
    it("answers an API key's workspace balance and plan, with the credits:read scope only", async () => {
      const user = await registerUser(server);
      await setPlan(server, admin, user.workspace.id, 'agency');
      await grantCredits(server, admin, user.workspace.id, 5);
      const key = async (scopes: string[]) => {
        const res = await api(server).post('/api-keys').set(user.auth).send({ name: `billing ${scopes.join(' ')}`, scopes });
        expect(res.status).toBe(201);
        return { Authorization: `Bearer ${res.body.key as string}` };
      };
      const res = await api(server).get('/public/credits').set(await key(['credits:read']));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ balance: 55, plan: 'agency' });
      const noScope = await api(server).get('/public/credits').set(await key(['characters:read']));
      expect(noScope.status).toBe(403);
      expect(noScope.body.code).toBe('insufficient_scope');
    });

    it('refuses a session token with 401 api_key_required', async () => {
      const user = await registerUser(server);
      const res = await api(server).get('/public/credits').set(user.auth);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('api_key_required');
    });
  });

  describe('concurrent debits', () => {
    it('never overspend: of 20 debits of 10 against 100 credits exactly 10 succeed', async () => {
      const user = await registerUser(server);
      await grantCredits(server, admin, user.workspace.id, 50);
      expect((await api(server).get('/billing/credits').set(user.auth)).body.balance).toBe(100);

      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          api(server).post(`/admin/workspaces/${user.workspace.id}/credits`).set(admin).send({ amount: -10, reason: 'concurrency' }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(10);
      expect(statuses.filter((s) => s === 402)).toHaveLength(10);
      for (const refused of results.filter((r) => r.status === 402)) {
        expect(refused.body).toMatchObject({ code: 'insufficient_credits', details: { required: 10, balance: expect.any(Number) } });
      }
      const balances = results.filter((r) => r.status === 201).map((r) => r.body.workspace.credits_balance as number);
      expect(balances.sort((x, y) => x - y)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);

      const credits = await api(server).get('/billing/credits').set(user.auth);
      expect(credits.body.balance).toBe(0);
      const ledger = await api(server).get('/billing/ledger?page_size=100').set(user.auth);
      const entries = ledger.body.entries as Array<{ amount: number; balance_after: number }>;
      expect(ledger.body.total).toBe(12);
      expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(0);
      expect(entries[0].balance_after).toBe(0);
      expect(entries.every((e) => e.balance_after >= 0)).toBe(true);
    });
  });

  describe('after a downgrade', () => {
    it('keeps characters above the new limit readable, refuses their generation until the workspace is under it, and lets the others generate', async () => {
      const user = await registerUser(server);
      await setPlan(server, admin, user.workspace.id, 'pro');
      const ids: string[] = [];
      for (const name of ['Ada', 'Bea', 'Cy', 'Dee']) {
        const res = await api(server).post('/characters').set(user.auth).send({ name, niche: 'travel' });
        expect(res.status).toBe(201);
        ids.push(res.body.character.id as string);
      }
      await setPlan(server, admin, user.workspace.id, 'starter');
      const generate = (characterId: string) =>
        api(server).post('/content/generate').set(user.auth).send({ character_id: characterId, platform: 'instagram', prompt: 'Sunrise run by the river' });

      const beyond = await generate(ids[3]);
      expect(beyond.status).toBe(403);
      expect(beyond.body).toMatchObject({ code: 'character_limit_reached', details: { limit: 3 } });
      expect(beyond.body.message).toMatch(/^The starter plan allows 3 characters; this workspace has 4\./);
      expect((await api(server).get(`/characters/${ids[3]}`).set(user.auth)).status).toBe(200);
      expect((await api(server).patch(`/characters/${ids[3]}`).set(user.auth).send({ name: 'Dee B' })).status).toBe(200);
      expect((await api(server).get('/billing/credits').set(user.auth)).body.balance).toBe(50);

      expect((await generate(ids[0])).status).toBe(201);
      expect((await api(server).delete(`/characters/${ids[1]}`).set(user.auth)).status).toBe(204);
      expect((await generate(ids[3])).status).toBe(201);
    });
  });

  describe('low-credit alerts', () => {
    it('tells the owners once per threshold of the period (25 %, 10 %, 0 %), by socket and mail, whichever way the credits went', async () => {
      const user = await registerUser(server);
      const socket = await authedSocket(server.wsUrl, user.token);
      const character = (await api(server).post('/characters').set(user.auth).send({ name: 'Mia', niche: 'travel' })).body.character.id as string;
      try {
        await grantCredits(server, admin, user.workspace.id, -37); // 13 of 50 left: above 25 % (12)
        // A paid order (one statement) takes 3: 10 left, at or below 25 %.
        const order = await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: 'instagram', prompt: 'Sunrise run by the river' });
        expect(order.status).toBe(201);
        await socket.waitFor((m) => m.type === 'credits.low' && m.credits.threshold === 25);
        await grantCredits(server, admin, user.workspace.id, -5); // 5 left: 10 %
        await socket.waitFor((m) => m.type === 'credits.low' && m.credits.threshold === 10);
        await grantCredits(server, admin, user.workspace.id, -1); // 4 left: nothing new
        await grantCredits(server, admin, user.workspace.id, -4); // 0
        const last = await socket.waitFor((m) => m.type === 'credits.low' && m.credits.threshold === 0);
        expect(last.credits).toEqual({ threshold: 0, remaining: 0, granted: 50, balance: expect.any(Number), resets_at: expect.any(String) });

        const mails = await waitFor(async () => {
          const all = (await mailbox(server, user.user.email)).filter((m) => m.template === 'credits.low');
          return all.length >= 3 ? all : null;
        }, 15_000, 'three credits.low mails');
        expect(mails.map((m) => m.subject).sort()).toEqual([
          'Your Persona Studio monthly credits are running low',
          'Your Persona Studio monthly credits are running low',
          'Your Persona Studio monthly credits are used up',
        ]);
        expect(socket.messages.filter((m) => m.type === 'credits.low').map((m) => m.credits.threshold)).toEqual([25, 10, 0]);
        const sub = await api(server).get('/billing/subscription').set(user.auth);
        expect(sub.body).toMatchObject({ plan: 'starter', allocation: { granted: 50, used: 50, remaining: 0 } });
      } finally {
        socket.close();
      }
    });
  });
});
