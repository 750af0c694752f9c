import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Data rights (docs/accounts-data.md): a workspace's exports (the archive's storage key, never a
 * URL) and the accounts scheduled for deletion. `state` moves `scheduled` → `purging` when a worker
 * claims a due deletion (signing in cancels only a scheduled one); `claimed_until` is that claim's lease.
 */
export class DataRights1733460000000 implements MigrationInterface {
  name = 'DataRights1733460000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE account_exports (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed', 'expired')),
        job_id text,
        archive_key text,
        size_bytes bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        ready_at timestamptz,
        expires_at timestamptz
      )`);
    await q.query('CREATE INDEX account_exports_workspace_idx ON account_exports (workspace_id, created_at DESC)');
    await q.query(`CREATE INDEX account_exports_expiry_idx ON account_exports (expires_at) WHERE status = 'ready'`);
    await q.query(`
      CREATE TABLE account_deletions (
        user_id text PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        state text NOT NULL DEFAULT 'scheduled' CHECK (state IN ('scheduled', 'purging')),
        requested_at timestamptz NOT NULL DEFAULT now(),
        purge_at timestamptz NOT NULL,
        claimed_until timestamptz
      )`);
    await q.query('CREATE INDEX account_deletions_due_idx ON account_deletions (purge_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE account_deletions');
    await q.query('DROP TABLE account_exports');
  }
}
