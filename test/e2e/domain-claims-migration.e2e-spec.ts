// @e2e services-only: seeds the previous release's rows with SQL on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';
import { newId } from '../../src/core/ids.js';
import { api } from '../helpers/api.js';
import { createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';

/** The last migration before domain claims: the schema where the first workspace to name a domain held it. */
const PREVIOUS_LAST = 'Analytics1733100000000';

/**
 * Domains claimed before proof was required were never proven: after the migration each is a
 * pending claim with a fresh token of its own, and its branding is no longer served by domain.
 */
describe('custom domain claims migration over data of the previous release', () => {
  let backing: Backing;
  let server: TestServer;
  const workspaces = [
    { id: newId('ws'), domain: 'studio.old-brand.test', name: 'Old Brand' },
    { id: newId('ws'), domain: 'xn--pple-43d.test', name: 'Look-alike' },
  ];

  beforeAll(async () => {
    backing = await createBacking({ services: true, fresh: true });
    const upTo = MIGRATIONS.findIndex((m) => m.name === PREVIOUS_LAST);
    expect(upTo).toBeGreaterThan(0);
    const ds = new DataSource({ type: 'postgres', url: backing.env.DATABASE_URL, migrations: MIGRATIONS.slice(0, upTo + 1), migrationsTransactionMode: 'each' });
    await ds.initialize();
    try {
      await ds.runMigrations();
      for (const w of workspaces) {
        await ds.query(`INSERT INTO workspaces (id, name, plan, credits_balance) VALUES ($1, $2, 'agency', 0)`, [w.id, w.name]);
        await ds.query(`INSERT INTO workspace_branding (workspace_id, display_name, custom_domain) VALUES ($1, $2, $3)`, [w.id, w.name, w.domain]);
      }
    } finally {
      await ds.destroy();
    }
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000' });
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('turns every old domain into a pending claim with its own token, and serves none of them', async () => {
    const db = new pg.Client({ connectionString: backing.env.DATABASE_URL });
    await db.connect();
    try {
      const rows = (await db.query(`SELECT workspace_id, domain, status, token, next_check_at FROM custom_domain_claims ORDER BY domain`)).rows;
      expect(rows.map((r) => [r.workspace_id, r.domain, r.status])).toEqual([
        [workspaces[0].id, 'studio.old-brand.test', 'pending'],
        [workspaces[1].id, 'xn--pple-43d.test', 'pending'],
      ]);
      expect(rows.every((r) => /^[0-9a-f]{32}$/.test(r.token) && r.next_check_at !== null)).toBe(true);
      expect(rows[0].token).not.toBe(rows[1].token);
      const column = await db.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'workspace_branding' AND column_name = 'custom_domain'`);
      expect(column.rowCount).toBe(0);
    } finally {
      await db.end();
    }
    for (const w of workspaces) {
      const res = await api(server).get('/branding').query({ domain: w.domain });
      expect({ domain: w.domain, status: res.status }).toEqual({ domain: w.domain, status: 404 });
    }
  });
});
