// @e2e services-only: two workers and a period end moved with SQL on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { api, registerUser, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';

/**
 * The monthly Starter allocation on the anniversary of a workspace's creation, opened by the
 * workers' pass: exactly once per period however many workers run it, what was left expiring and
 * purchased credits staying. Needs PostgreSQL (the test moves a workspace's period end into the past).
 */
describe('monthly Starter allocations (two workers)', () => {
  let backing: Backing;
  let server: TestServer;
  let workers: RunningProcess[] = [];
  let db: pg.Client;

  beforeAll(async () => {
    backing = await createBacking({ services: true });
    // The API runs no jobs or passes; two workers run the allocation pass every 100 ms, side by side.
    server = await startServer(backing, { RUN_JOBS_IN_API: 'false', AUTH_RATE_LIMIT_PER_MINUTE: '1000' });
    workers = await Promise.all([startWorker(backing, { ALLOCATION_PASS_MS: '100' }), startWorker(backing, { ALLOCATION_PASS_MS: '100' })]);
    db = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await Promise.all(workers.map((w) => w.stop()));
    await server?.stop();
    await backing?.cleanup();
  });

  const ledger = async (user: TestUser) =>
    (await api(server).get('/billing/ledger?page_size=100').set(user.auth)).body.entries as Array<{ amount: number; reason: string; ref_id: string | null; balance_after: number }>;

  it('opens each due period once: the leftover expires, 50 come in, purchased credits stay, the next end is a month on', async () => {
    const users = await Promise.all([1, 2, 3, 4, 5].map(() => registerUser(server, {}, { verified: false })));
    const ids = users.map((u) => u.workspace.id);
    // 20 of the first period's 50 spent (allocation first), 30 purchased credits given by an administrator's hand.
    await db.query(
      `UPDATE workspaces SET credits_balance = credits_balance - 20 + 30, allocation_remaining = allocation_remaining - 20 WHERE id = ANY($1)`,
      [ids],
    );
    await db.query(
      `INSERT INTO credit_ledger (id, workspace_id, amount, balance_after, reason, created_at)
       SELECT 'led_e2e_' || w.id || '_' || v.n, w.id, v.amount, v.after, v.reason, now() + v.n * interval '1 millisecond'
       FROM workspaces w CROSS JOIN (VALUES (1, -20, 30, 'e2e_spend'), (2, 30, 60, 'e2e_grant')) AS v (n, amount, after, reason)
       WHERE w.id = ANY($1)`,
      [ids],
    );
    // The first period ends now: the anniversary passed (the anchor a month back).
    await db.query(`UPDATE workspaces SET allocation_anchor = now() - interval '1 month' - interval '1 minute', allocation_resets_at = now() - interval '1 minute' WHERE id = ANY($1)`, [ids]);

    for (const user of users) {
      const after = await waitFor(async () => {
        const res = await api(server).get('/billing/subscription').set(user.auth);
        return res.body.allocation.used === 0 && new Date(res.body.allocation.resets_at).getTime() > Date.now() ? res.body : null;
      }, 15_000, 'the second period');
      expect(after).toMatchObject({ plan: 'starter', allocation: { granted: 50, used: 0, remaining: 50 }, purchased_credits: 30, balance: 80 });
      const next = new Date(after.allocation.resets_at).getTime();
      expect(next - Date.now()).toBeGreaterThan(27 * 86_400_000);
      expect(next - Date.now()).toBeLessThan(32 * 86_400_000);
      const entries = await ledger(user);
      expect(entries.filter((e) => e.ref_id === 'starter:2').map((e) => [e.reason, e.amount])).toEqual([['allocation_granted', 50], ['allocation_expired', -30]]);
      expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(80);
    }
    // However many passes ran since, each period was granted once.
    const grants = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_grants WHERE workspace_id = ANY($1) AND grant_key = 'starter:2'`, [ids]);
    expect(grants.rows[0].n).toBe(5);
  });
});
