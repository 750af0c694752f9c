import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Motion transfers: a character's look on the motion of a reference video, one job each. */
export class MotionTransfer1732300001000 implements MigrationInterface {
  name = 'MotionTransfer1732300001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE motion_transfers (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        job_id text NOT NULL,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'completed', 'failed')),
        source text NOT NULL CHECK (source IN ('url', 'upload')),
        reference_video_url text,
        source_key text,
        duration_seconds integer NOT NULL CHECK (duration_seconds BETWEEN 5 AND 60),
        aspect_ratio text NOT NULL CHECK (aspect_ratio IN ('9:16', '1:1', '16:9')),
        video_key text,
        video_url text,
        thumbnail_key text,
        thumbnail_url text,
        credits_charged integer NOT NULL CHECK (credits_charged >= 0),
        error jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX motion_transfers_job_uq ON motion_transfers (job_id)`);
    await q.query(`CREATE INDEX motion_transfers_character_idx ON motion_transfers (workspace_id, character_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS motion_transfers`);
  }
}
