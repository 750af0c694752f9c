import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Content items: generated posts of a character, their media, caption variants and plan slot. */
export class Content1732300000000 implements MigrationInterface {
  name = 'Content1732300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE content_items (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'queued'
          CHECK (status IN ('queued', 'generating', 'ready', 'approved', 'rejected', 'published', 'failed')),
        platform text NOT NULL,
        content_type text NOT NULL CHECK (content_type IN ('single', 'carousel', 'story', 'video', 'reel', 'short')),
        kind text NOT NULL CHECK (kind IN ('image', 'video')),
        image_prompt text NOT NULL,
        caption text,
        hashtags jsonb NOT NULL DEFAULT '[]',
        cta text,
        media jsonb NOT NULL DEFAULT '[]',
        variants jsonb NOT NULL DEFAULT '[]',
        variants_locked boolean NOT NULL DEFAULT false,
        video jsonb,
        language text,
        planned_for timestamptz,
        rejection_reason text,
        job_id text,
        media_job_id text,
        week_job_id text,
        plan_index integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`);
    await q.query(`CREATE INDEX content_items_queue_idx ON content_items (workspace_id, status, created_at, id)`);
    await q.query(`CREATE INDEX content_items_character_idx ON content_items (workspace_id, character_id, created_at)`);
    await q.query(`CREATE INDEX content_items_planned_idx ON content_items (workspace_id, planned_for) WHERE planned_for IS NOT NULL`);
    // One item per slot of a week plan: a re-delivered plan job cannot create its items twice.
    await q.query(`CREATE UNIQUE INDEX content_items_week_slot_uq ON content_items (week_job_id, plan_index) WHERE week_job_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS content_items`);
  }
}
