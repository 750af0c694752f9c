import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook claims read per endpoint: the endpoints with work are found by skipping through this
 * index (one probe each), and each endpoint's oldest due deliveries are read from it in order, so
 * a claim reads the rows it may take instead of ranking every due delivery (it read ~440 rows per
 * delivery on a 5,000-delivery backlog).
 */
export class WebhookClaims1733500000000 implements MigrationInterface {
  name = 'WebhookClaims1733500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE status IN ('pending', 'delivering')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX webhook_deliveries_endpoint_due_idx');
  }
}
