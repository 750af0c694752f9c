import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys: the first answer of a POST sent with an `Idempotency-Key` header, kept per
 * workspace so a retry replays it instead of doing the work again.
 */
export class Idempotency1732400001000 implements MigrationInterface {
  name = 'Idempotency1732400001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        key text NOT NULL,
        method text NOT NULL,
        path text NOT NULL,
        request_hash text NOT NULL,
        status text NOT NULL CHECK (status IN ('in_progress', 'completed')),
        response_status integer,
        -- json, not jsonb: it keeps the answer's text as sent, key order included, so a replay is identical.
        response_body json,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (workspace_id, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS idempotency_keys`);
  }
}
