import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, loginAdmin, missingId, registerUser, uniqueEmail, type TestUser } from '../helpers/api.js';
import { inviteAndAccept } from '../helpers/invitations.js';
import { ADMIN_EMAIL, createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';

describe('admin workspaces', () => {
  let backing: Backing;
  let server: TestServer;
  let admin: { Authorization: string };
  let user: TestUser;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000' });
    admin = await loginAdmin(server);
    user = await registerUser(server, { email: uniqueEmail('Owner') });
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  describe('access', () => {
    it('refuses a non-admin with 403 forbidden on every admin route', async () => {
      const calls = [
        api(server).get('/admin/workspaces').set(user.auth),
        api(server).patch(`/admin/workspaces/${user.workspace.id}`).set(user.auth).send({ plan: 'agency' }),
        api(server).post(`/admin/workspaces/${user.workspace.id}/credits`).set(user.auth).send({ amount: 1000, reason: 'self-service' }),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
      const me = await api(server).get('/auth/me').set(user.auth);
      expect(me.body.workspace).toMatchObject({ plan: 'starter', credits_balance: 50 });
    });

    it('answers 401 without a token and session_required for an API key', async () => {
      expect((await api(server).get('/admin/workspaces')).status).toBe(401);
      const key = await api(server).get('/admin/workspaces').set('Authorization', 'Bearer psk_0123456789abcdef0123456789abcdef');
      expect(key.body.code).toBe('session_required');
    });
  });

  describe('GET /admin/workspaces', () => {
    it('finds workspaces by a case-insensitive part of the owner email', async () => {
      const fragment = user.user.email.split('@')[0].toUpperCase();
      const res = await api(server).get('/admin/workspaces').query({ email: fragment }).set(admin);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        workspaces: [
          {
            id: user.workspace.id,
            name: expect.any(String),
            plan: 'starter',
            credits_balance: 50,
            character_limit: 3,
            created_at: expect.any(String),
            owner_email: user.user.email,
          },
        ],
        page: 1,
        page_size: 20,
        total: 1,
      });
    });

    it('lists every workspace without a filter, with paging, and treats % and _ literally', async () => {
      await registerUser(server);
      const all = await api(server).get('/admin/workspaces?page_size=1').set(admin);
      expect(all.status).toBe(200);
      expect(all.body.workspaces).toHaveLength(1);
      expect(all.body.total).toBeGreaterThanOrEqual(3);
      const own = await api(server).get('/admin/workspaces').query({ email: ADMIN_EMAIL }).set(admin);
      expect(own.body.workspaces[0]).toMatchObject({ owner_email: ADMIN_EMAIL, plan: 'agency' });
      const wildcard = await api(server).get('/admin/workspaces').query({ email: '%' }).set(admin);
      expect(wildcard.body).toMatchObject({ workspaces: [], total: 0 });
    });

    it('reads owners from the memberships: a workspace made with POST /organizations has its owner and is found by their email', async () => {
      const founder = await registerUser(server, { email: uniqueEmail('founder') });
      const created = await api(server).post('/organizations').set(founder.auth).send({ name: 'Founded' });
      expect(created.status).toBe(201);
      const org = created.body.organization.id as string;
      const search = async (email: string) => (await api(server).get('/admin/workspaces').query({ email }).set(admin)).body;

      const byFounder = await search(founder.user.email.split('@')[0]);
      expect(byFounder.total).toBe(2);
      expect(byFounder.workspaces).toEqual(expect.arrayContaining([
        expect.objectContaining({ id: org, owner_email: founder.user.email }),
        expect.objectContaining({ id: founder.workspace.id, owner_email: founder.user.email }),
      ]));
      const unfiltered = await api(server).get('/admin/workspaces').query({ page_size: 100 }).set(admin);
      expect(unfiltered.body.workspaces.find((w: { id: string }) => w.id === org)).toMatchObject({ owner_email: founder.user.email });

      // A second owner joins and the founder leaves: the workspace now belongs to the second owner only.
      await api(server).patch(`/admin/workspaces/${org}`).set(admin).send({ plan: 'pro' }).expect(200);
      const heir = await registerUser(server, { email: uniqueEmail('heir') });
      await inviteAndAccept(server, founder.auth, org, heir, 'owner');
      const byHeir = await search(heir.user.email.split('@')[0]);
      expect(byHeir.workspaces.find((w: { id: string }) => w.id === org)).toMatchObject({ owner_email: heir.user.email });
      await api(server).delete(`/organizations/${org}/members/${founder.user.id}`).set(founder.auth).expect(204);
      expect((await search(founder.user.email.split('@')[0])).workspaces.map((w: { id: string }) => w.id)).toEqual([founder.workspace.id]);
      expect((await search(heir.user.email.split('@')[0])).workspaces).toEqual(expect.arrayContaining([expect.objectContaining({ id: org, owner_email: heir.user.email })]));
    });

    it('answers 400 for an unknown query parameter', async () => {
      const res = await api(server).get('/admin/workspaces?plan=pro').set(admin);
      expect(res.status).toBe(400);
    });
  });

  describe('PATCH /admin/workspaces/{id}', () => {
    it('changes the plan, effective on the owner\'s next request', async () => {
      const owner = await registerUser(server);
      const res = await api(server).patch(`/admin/workspaces/${owner.workspace.id}`).set(admin).send({ plan: 'pro' });
      expect(res.status).toBe(200);
      expect(res.body.workspace).toMatchObject({ id: owner.workspace.id, plan: 'pro', character_limit: 15, credits_balance: 50 });
      const credits = await api(server).get('/billing/credits').set(owner.auth);
      expect(credits.body).toEqual({ balance: 50, plan: 'pro', character_limit: 15 });
    });

    it.each([[{ plan: 'enterprise' }], [{}], [{ plan: 'pro', credits_balance: 1 }]])('answers 400 for %j', async (body) => {
      const res = await api(server).patch(`/admin/workspaces/${user.workspace.id}`).set(admin).send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });

    it('answers 404 for an unknown or malformed workspace id', async () => {
      for (const id of [missingId('ws'), 'ws_nope', missingId('char')]) {
        const res = await api(server).patch(`/admin/workspaces/${id}`).set(admin).send({ plan: 'pro' });
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
    });
  });

  describe('POST /admin/workspaces/{id}/credits', () => {
    it('grants and takes credits, each with a ledger entry', async () => {
      const owner = await registerUser(server);
      const grant = await api(server).post(`/admin/workspaces/${owner.workspace.id}/credits`).set(admin).send({ amount: 150, reason: '  Launch bonus ' });
      expect(grant.status).toBe(201);
      expect(grant.body).toEqual({
        workspace: expect.objectContaining({ id: owner.workspace.id, credits_balance: 200 }),
        entry: {
          id: expect.stringMatching(/^led_/),
          amount: 150,
          balance_after: 200,
          reason: 'Launch bonus',
          ref_type: 'admin',
          ref_id: expect.stringMatching(/^user_/),
          created_at: expect.any(String),
        },
      });
      const take = await api(server).post(`/admin/workspaces/${owner.workspace.id}/credits`).set(admin).send({ amount: -200, reason: 'Refund reversal' });
      expect(take.status).toBe(201);
      expect(take.body.entry).toMatchObject({ amount: -200, balance_after: 0 });
      expect(take.body.workspace.credits_balance).toBe(0);
    });

    it('answers 402 insufficient_credits for a debit beyond the balance, and takes nothing', async () => {
      const owner = await registerUser(server);
      const res = await api(server).post(`/admin/workspaces/${owner.workspace.id}/credits`).set(admin).send({ amount: -51, reason: 'too much' });
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({
        code: 'insufficient_credits',
        message: expect.stringMatching(/^This needs 51 credits; the workspace has 50 \(1 short\)\. /),
        details: { required: 51, balance: 50, shortfall: 1, credits_url: '/api/v1/billing/credits' },
      });
      const credits = await api(server).get('/billing/credits').set(owner.auth);
      expect(credits.body.balance).toBe(50);
      expect((await api(server).get('/billing/ledger').set(owner.auth)).body.total).toBe(1);
    });

    it.each([
      [{ amount: 0, reason: 'zero' }, 'amount'],
      [{ amount: 1.5, reason: 'fraction' }, 'amount'],
      [{ amount: '10', reason: 'string' }, 'amount'],
      [{ amount: 1_000_001, reason: 'too big' }, 'amount'],
      [{ amount: -1_000_001, reason: 'too small' }, 'amount'],
      [{ amount: 10 }, 'reason'],
      [{ amount: 10, reason: '   ' }, 'reason'],
      [{ amount: 10, reason: 'r'.repeat(201) }, 'reason'],
      [{ amount: 10, reason: 'ok', note: 'extra' }, 'note'],
    ])('answers 400 for %j', async (body, field) => {
      const res = await api(server).post(`/admin/workspaces/${user.workspace.id}/credits`).set(admin).send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    });

    it('answers 404 for an unknown or malformed workspace id, for grants and debits alike', async () => {
      for (const [id, amount] of [[missingId('ws'), 10], [missingId('ws'), -10], ['nope', 10]] as const) {
        const res = await api(server).post(`/admin/workspaces/${id}/credits`).set(admin).send({ amount, reason: 'x' });
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
    });
  });
});
