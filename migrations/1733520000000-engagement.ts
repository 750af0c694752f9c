import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Engagement: each character's responder settings, its conversations with platform users, and
 * their messages. An inbound message is stored once per workspace (its platform's message id is
 * unique there); a drafted reply answers one inbound message at most once. A reply's `send_at` is
 * when it may go out: the responder's delay, then its hourly cap.
 */
export class Engagement1733520000000 implements MigrationInterface {
  name = 'Engagement1733520000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE responder_settings (
        character_id text PRIMARY KEY REFERENCES characters (id) ON DELETE CASCADE,
        workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        enabled boolean NOT NULL DEFAULT false,
        platforms_enabled text[] NOT NULL DEFAULT '{}',
        max_replies_per_hour integer NOT NULL DEFAULT 20 CHECK (max_replies_per_hour BETWEEN 1 AND 200),
        response_delay_seconds integer NOT NULL DEFAULT 60 CHECK (response_delay_seconds BETWEEN 0 AND 3600),
        greeting_message text,
        banned_topics text[] NOT NULL DEFAULT '{}',
        mode text NOT NULL DEFAULT 'review' CHECK (mode IN ('auto', 'review')),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX responder_settings_workspace_idx ON responder_settings (workspace_id) WHERE enabled');
    await q.query(`
      CREATE TABLE conversations (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        character_id text NOT NULL REFERENCES characters (id) ON DELETE CASCADE,
        platform text NOT NULL,
        platform_user_id text NOT NULL,
        platform_user_name text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'pending_review', 'paused', 'closed')),
        last_message_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (workspace_id, character_id, platform, platform_user_id)
      )`);
    await q.query('CREATE INDEX conversations_character_idx ON conversations (character_id, last_message_at DESC, id DESC)');
    await q.query('CREATE INDEX conversations_user_idx ON conversations (workspace_id, platform, platform_user_id, last_message_at DESC)');
    await q.query(`
      CREATE TABLE conversation_messages (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        character_id text NOT NULL,
        platform text NOT NULL,
        direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
        channel text NOT NULL CHECK (channel IN ('comment', 'dm')),
        platform_message_id text,
        remote_post_id text,
        text text NOT NULL,
        status text NOT NULL CHECK (status IN ('received', 'pending_review', 'queued', 'sending', 'sent', 'failed', 'discarded')),
        origin text NOT NULL CHECK (origin IN ('audience', 'auto', 'manual', 'platform')),
        reply_to_id text REFERENCES conversation_messages (id) ON DELETE SET NULL,
        review_reason text,
        author_user_id text REFERENCES users (id) ON DELETE SET NULL,
        send_at timestamptz,
        claimed_at timestamptz,
        sent_at timestamptz,
        error_code text,
        error_message text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX conversation_messages_inbound_once ON conversation_messages (workspace_id, platform, platform_message_id) WHERE direction = 'inbound'`);
    await q.query(`CREATE UNIQUE INDEX conversation_messages_one_draft ON conversation_messages (reply_to_id) WHERE origin = 'auto'`);
    await q.query('CREATE INDEX conversation_messages_thread_idx ON conversation_messages (conversation_id, created_at, id)');
    await q.query(`CREATE INDEX conversation_messages_auto_sends_idx ON conversation_messages (character_id, send_at) WHERE origin = 'auto' AND status IN ('queued', 'sending', 'sent')`);
    await q.query(`CREATE INDEX conversation_messages_sent_remote_idx ON conversation_messages (workspace_id, platform, platform_message_id) WHERE direction = 'outbound' AND platform_message_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE engagement_poll_cursors (
        workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        platform text NOT NULL,
        read_until timestamptz NOT NULL,
        PRIMARY KEY (workspace_id, platform)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE engagement_poll_cursors');
    await q.query('DROP TABLE conversation_messages');
    await q.query('DROP TABLE conversations');
    await q.query('DROP TABLE responder_settings');
  }
}
