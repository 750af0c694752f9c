import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Self-hosted GPU routing (contract §13): the endpoints admins register, with their key sealed,
 * and the one routing setting. Health, load, circuits and stats are runtime state, kept in Redis.
 */
export class SelfHostedRouting1732800000000 implements MigrationInterface {
  name = 'SelfHostedRouting1732800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE selfhosted_endpoints (
        id text PRIMARY KEY,
        name text NOT NULL,
        url text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('a1111', 'comfyui')),
        status text NOT NULL CHECK (status IN ('active', 'disabled')),
        max_concurrency integer NOT NULL CHECK (max_concurrency BETWEEN 1 AND 64),
        capabilities text[] NOT NULL CHECK (cardinality(capabilities) > 0),
        api_key_sealed text,
        workflow jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE selfhosted_routing (
        id smallint PRIMARY KEY CHECK (id = 1),
        enabled boolean NOT NULL DEFAULT false,
        routing_percentage numeric(5, 2) NOT NULL DEFAULT 0 CHECK (routing_percentage BETWEEN 0 AND 100),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`INSERT INTO selfhosted_routing (id) VALUES (1)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE selfhosted_routing`);
    await q.query(`DROP TABLE selfhosted_endpoints`);
  }
}
