import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * LoRA training: one LoRA per character (its row reused by each new training, removed by DELETE),
 * the character's training images, and the provider webhook deliveries already applied.
 */
export class Lora1732600000000 implements MigrationInterface {
  name = 'Lora1732600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE loras (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('queued', 'training', 'ready', 'failed')),
        base_model text NOT NULL CHECK (base_model IN ('flux-dev', 'sdxl')),
        training_steps integer NOT NULL CHECK (training_steps BETWEEN 1000 AND 1500),
        lora_rank integer NOT NULL CHECK (lora_rank BETWEEN 16 AND 32),
        trigger_word text NOT NULL,
        progress integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
        job_id text NOT NULL,
        provider text NOT NULL CHECK (provider IN ('replicate', 'local')),
        provider_training_id text,
        weights_url text,
        provider_version text,
        style real[],
        error jsonb,
        credits_charged integer NOT NULL CHECK (credits_charged >= 0),
        trained_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX loras_character_uq ON loras (character_id)`);
    await q.query(`CREATE UNIQUE INDEX loras_provider_training_uq ON loras (provider, provider_training_id) WHERE provider_training_id IS NOT NULL`);
    await q.query(`CREATE INDEX loras_workspace_idx ON loras (workspace_id)`);
    await q.query(`
      CREATE TABLE lora_training_images (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        storage_key text NOT NULL,
        content_type text NOT NULL,
        size_bytes integer NOT NULL CHECK (size_bytes > 0),
        width integer NOT NULL,
        height integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX lora_training_images_character_idx ON lora_training_images (workspace_id, character_id, created_at, id)`);
    await q.query(`
      CREATE TABLE lora_webhook_deliveries (
        id text PRIMARY KEY,
        provider_training_id text NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS lora_webhook_deliveries`);
    await q.query(`DROP TABLE IF EXISTS lora_training_images`);
    await q.query(`DROP TABLE IF EXISTS loras`);
  }
}
