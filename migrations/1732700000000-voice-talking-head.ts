import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Voice (a character's voice settings and clone, its audio clips) and talking heads (the
 * lip-synced videos made from a character's image and speech).
 */
export class VoiceTalkingHead1732700000000 implements MigrationInterface {
  name = 'VoiceTalkingHead1732700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE character_voices (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        name text,
        clone_voice_id text,
        status text NOT NULL CHECK (status IN ('none', 'cloning', 'ready', 'failed')),
        settings jsonb NOT NULL,
        sample_count integer NOT NULL DEFAULT 0,
        sample_keys text[] NOT NULL DEFAULT '{}',
        error jsonb,
        job_id text,
        credits_charged integer NOT NULL DEFAULT 0 CHECK (credits_charged >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX character_voices_character_uq ON character_voices (character_id)`);
    await q.query(`CREATE INDEX character_voices_clones_idx ON character_voices (workspace_id) WHERE clone_voice_id IS NOT NULL`);
    await q.query(`CREATE INDEX character_voices_clone_id_idx ON character_voices (clone_voice_id) WHERE clone_voice_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE audio_clips (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('preview', 'speech')),
        status text NOT NULL CHECK (status IN ('queued', 'completed', 'failed')),
        text text NOT NULL,
        format text NOT NULL CHECK (format IN ('mp3', 'wav')),
        voice_id text NOT NULL,
        storage_key text,
        duration_seconds real,
        characters integer NOT NULL,
        credits_charged integer NOT NULL CHECK (credits_charged >= 0),
        job_id text,
        error jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX audio_clips_character_idx ON audio_clips (workspace_id, character_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE talking_head_generations (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('preview', 'full')),
        status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
        script text NOT NULL,
        aspect_ratio text NOT NULL CHECK (aspect_ratio IN ('9:16', '1:1', '16:9')),
        audio_key text,
        video_key text,
        thumbnail_key text,
        duration_seconds real,
        content_id text,
        credits_charged integer NOT NULL CHECK (credits_charged >= 0),
        job_id text NOT NULL,
        error jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(`CREATE INDEX talking_head_character_idx ON talking_head_generations (workspace_id, character_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS talking_head_generations`);
    await q.query(`DROP TABLE IF EXISTS audio_clips`);
    await q.query(`DROP TABLE IF EXISTS character_voices`);
  }
}
