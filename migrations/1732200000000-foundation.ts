import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts, workspaces, credits, sessions, API keys, characters, reference images and jobs. */
export class Foundation1732200000000 implements MigrationInterface {
  name = 'Foundation1732200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspaces (
        id text PRIMARY KEY,
        name text NOT NULL,
        plan text NOT NULL DEFAULT 'starter' CHECK (plan IN ('starter', 'pro', 'agency')),
        credits_balance integer NOT NULL DEFAULT 0 CHECK (credits_balance >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE users (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        email text NOT NULL,
        password_hash text NOT NULL,
        display_name text NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        role text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
        locale text NOT NULL DEFAULT 'en',
        onboarding_step text NOT NULL DEFAULT 'welcome',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_lower_uq ON users (lower(email))`);
    await q.query(`CREATE INDEX users_workspace_idx ON users (workspace_id)`);

    await q.query(`
      CREATE TABLE credit_ledger (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        amount integer NOT NULL CHECK (amount <> 0),
        balance_after integer NOT NULL CHECK (balance_after >= 0),
        reason text NOT NULL,
        ref_type text,
        ref_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX credit_ledger_workspace_idx ON credit_ledger (workspace_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX credit_ledger_ref_idx ON credit_ledger (ref_type, ref_id)`);

    await q.query(`
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        revoked_reason text,
        user_agent text,
        ip text
      )`);
    await q.query(`CREATE INDEX sessions_user_idx ON sessions (user_id)`);
    await q.query(`
      CREATE TABLE refresh_tokens (
        id text PRIMARY KEY,
        session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        token_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        rotated_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX refresh_tokens_hash_uq ON refresh_tokens (token_hash)`);
    await q.query(`CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id)`);

    await q.query(`
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name text NOT NULL,
        prefix text NOT NULL,
        key_hash text NOT NULL,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        expires_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX api_keys_hash_uq ON api_keys (key_hash)`);
    await q.query(`CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id, created_at DESC)`);

    await q.query(`
      CREATE TABLE characters (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name text NOT NULL,
        niche text NOT NULL,
        appearance jsonb NOT NULL DEFAULT '{}',
        identity jsonb NOT NULL DEFAULT '{}',
        personality jsonb NOT NULL DEFAULT '{}',
        style jsonb NOT NULL DEFAULT '{}',
        settings jsonb NOT NULL DEFAULT '{}',
        reference_images jsonb NOT NULL DEFAULT '[]',
        talking_head_enabled boolean NOT NULL DEFAULT false,
        autopilot boolean NOT NULL DEFAULT false,
        face_consistency_tier text NOT NULL DEFAULT 'ip_adapter',
        lora_training_status text NOT NULL DEFAULT 'none',
        content_count integer NOT NULL DEFAULT 0 CHECK (content_count >= 0),
        follower_count integer NOT NULL DEFAULT 0 CHECK (follower_count >= 0),
        last_post_date timestamptz,
        is_default boolean NOT NULL DEFAULT false,
        timezone text,
        face_embedding real[],
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX characters_workspace_idx ON characters (workspace_id, created_at DESC, id DESC)`);
    await q.query(`CREATE UNIQUE INDEX characters_one_default_uq ON characters (workspace_id) WHERE is_default`);

    await q.query(`
      CREATE TABLE reference_images (
        id text PRIMARY KEY,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('primary', 'reference')),
        url text NOT NULL,
        storage_key text NOT NULL,
        content_type text NOT NULL,
        size_bytes integer NOT NULL,
        width integer NOT NULL,
        height integer NOT NULL,
        embedding real[],
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX reference_images_character_idx ON reference_images (character_id, created_at)`);

    await q.query(`
      CREATE TABLE jobs (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        job_type text NOT NULL,
        status text NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled')),
        progress integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
        character_id text,
        content_id text,
        payload jsonb NOT NULL DEFAULT '{}',
        result jsonb,
        error jsonb,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz
      )`);
    await q.query(`CREATE INDEX jobs_workspace_idx ON jobs (workspace_id, created_at DESC)`);
    await q.query(`CREATE INDEX jobs_open_idx ON jobs (status, created_at) WHERE status IN ('pending', 'running')`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['jobs', 'reference_images', 'characters', 'api_keys', 'refresh_tokens', 'sessions', 'credit_ledger', 'users', 'workspaces']) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
  }
}
