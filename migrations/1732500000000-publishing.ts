import type { MigrationInterface, QueryRunner } from 'typeorm';

const PLATFORMS = `('instagram', 'tiktok', 'twitter', 'youtube', 'pinterest')`;

/**
 * Publishing: a workspace's connection to each platform (tokens encrypted by the service, never
 * stored in the clear), the single-use OAuth states of connections being made, and scheduled
 * posts. A post row is also the publish job's record: the dispatcher claims due rows with
 * `FOR UPDATE SKIP LOCKED`, and `call_started_at` marks that the irreversible platform call was
 * sent, so a crashed attempt is reconciled instead of being sent twice.
 */
export class Publishing1732500000000 implements MigrationInterface {
  name = 'Publishing1732500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE platform_connections (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        platform text NOT NULL CHECK (platform IN ${PLATFORMS}),
        mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
        status text NOT NULL CHECK (status IN ('connected', 'expired', 'needs_reauth', 'disconnected')),
        account_id text,
        account_name text,
        access_token_enc text,
        refresh_token_enc text,
        expires_at timestamptz,
        scopes jsonb NOT NULL DEFAULT '[]',
        default_board_id text,
        -- A refresh in progress: whoever set it refreshes; the others wait for the new token.
        refresh_lease_until timestamptz,
        connected_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT platform_connections_one_per_platform UNIQUE (workspace_id, platform)
      )`);
    await q.query(`
      CREATE TABLE oauth_states (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        platform text NOT NULL CHECK (platform IN ${PLATFORMS}),
        redirect_path text NOT NULL,
        code_verifier_enc text,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX oauth_states_expiry ON oauth_states (expires_at)`);
    await q.query(`
      CREATE TABLE scheduled_posts (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        content_id text NOT NULL REFERENCES content_items(id) ON DELETE CASCADE,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        -- As the client spelled it; platform_key is the platform it means.
        platform text NOT NULL,
        platform_key text NOT NULL CHECK (platform_key IN ${PLATFORMS}),
        status text NOT NULL CHECK (status IN ('pending', 'publishing', 'published', 'failed', 'cancelled')),
        scheduled_at timestamptz NOT NULL,
        -- When the dispatcher may take it: scheduled_at, or next_attempt_at after a retryable failure.
        due_at timestamptz NOT NULL,
        next_attempt_at timestamptz,
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        claim_id text,
        claimed_at timestamptz,
        call_started_at timestamptz,
        published_at timestamptz,
        remote_post_id text,
        remote_url text,
        media_urls jsonb NOT NULL DEFAULT '[]',
        error_code text,
        error_message text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (status <> 'published' OR remote_post_id IS NOT NULL)
      )`);
    await q.query(`CREATE UNIQUE INDEX scheduled_posts_one_pending ON scheduled_posts (content_id, platform_key) WHERE status IN ('pending', 'publishing')`);
    await q.query(`CREATE INDEX scheduled_posts_due ON scheduled_posts (due_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX scheduled_posts_in_flight ON scheduled_posts (claimed_at) WHERE status = 'publishing'`);
    await q.query(`CREATE INDEX scheduled_posts_upcoming ON scheduled_posts (workspace_id, scheduled_at)`);
    await q.query(`CREATE INDEX scheduled_posts_history ON scheduled_posts (workspace_id, updated_at DESC) WHERE status IN ('published', 'failed', 'cancelled')`);
    await q.query(`CREATE INDEX scheduled_posts_character ON scheduled_posts (character_id, platform_key, scheduled_at)`);
    await q.query(`CREATE UNIQUE INDEX scheduled_posts_remote ON scheduled_posts (platform_key, remote_post_id) WHERE remote_post_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE scheduled_posts');
    await q.query('DROP TABLE oauth_states');
    await q.query('DROP TABLE platform_connections');
  }
}
