import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Platform webhooks name the account, not the workspace (Instagram `entry.id`, X `for_user_id`):
 * each delivery looks up the workspaces connected to that account, so the look-up is one index probe.
 */
export class ConnectionAccounts1733505000000 implements MigrationInterface {
  name = 'ConnectionAccounts1733505000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX platform_connections_account_idx ON platform_connections (platform, account_id) WHERE account_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX platform_connections_account_idx');
  }
}
