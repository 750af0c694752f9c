import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outbound webhooks (docs/webhooks.md). `webhook_endpoints`: a workspace's receivers, the signing
 * secret sealed (and the previous one during a rotation's overlap). `webhook_deliveries`: one row
 * per event and endpoint (UNIQUE, so a fan-out run twice inserts nothing new), holding the exact
 * JSON sent, its status and the next try; `leased_until` is a worker's claim. `webhook_attempts`:
 * every try, its status, latency and the first KiB of the answer. Deleting an endpoint deletes its
 * deliveries and attempts (cascade).
 */
export class Webhooks1733490000000 implements MigrationInterface {
  name = 'Webhooks1733490000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        url text NOT NULL,
        description text NOT NULL DEFAULT '',
        event_types text[] NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text NULL CHECK (disabled_reason IN ('gone', 'failing', 'manual')),
        disabled_at timestamptz NULL,
        secret_sealed text NOT NULL,
        previous_secret_sealed text NULL,
        previous_secret_expires_at timestamptz NULL,
        failing_since timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX webhook_endpoints_workspace_idx ON webhook_endpoints (workspace_id, created_at)');
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id text PRIMARY KEY,
        endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event_type text NOT NULL,
        body jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivering', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        leased_until timestamptz NULL,
        last_status integer NULL,
        last_error text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz NULL,
        CONSTRAINT webhook_deliveries_event_uq UNIQUE (endpoint_id, event_id)
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (leased_until) WHERE status = 'delivering'`);
    await q.query('CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX webhook_deliveries_workspace_idx ON webhook_deliveries (workspace_id)');
    await q.query(`
      CREATE TABLE webhook_attempts (
        delivery_id text NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        status_code integer NULL,
        response_excerpt text NULL,
        error text NULL,
        PRIMARY KEY (delivery_id, attempt)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_attempts');
    await q.query('DROP TABLE webhook_deliveries');
    await q.query('DROP TABLE webhook_endpoints');
  }
}
