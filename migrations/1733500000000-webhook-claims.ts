import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook claims read per endpoint: the endpoints with open deliveries are found by skipping through
 * the first index (one probe each), each endpoint's oldest due deliveries are read from it in order,
 * and its lapsed and live leases from the second, so a claim reads the rows it may take instead of
 * ranking every due delivery (it read ~440 rows per delivery on a 5,000-delivery backlog).
 */
export class WebhookClaims1733500000000 implements MigrationInterface {
  name = 'WebhookClaims1733500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE status IN ('pending', 'delivering')`);
    await q.query(`CREATE INDEX webhook_deliveries_endpoint_leased_idx ON webhook_deliveries (endpoint_id, leased_until) WHERE status = 'delivering'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX webhook_deliveries_endpoint_leased_idx');
    await q.query('DROP INDEX webhook_deliveries_endpoint_due_idx');
  }
}
