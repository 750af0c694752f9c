import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Monetization (docs/monetization.md). `affiliate_links`: a character's short links; the shortcode
 * is unique across the service (the public redirect `/l/{shortcode}` names no workspace) and
 * `click_count` is the flushed total. `link_clicks_daily`: clicks per link and UTC day.
 * `link_click_flushes`: the click batches already written, so a batch moved aside in Redis and
 * written again after a crash between the commit and its removal is not counted twice.
 * `revenue_entries`: amounts in minor units; an entry keeps its amount when its link is deleted
 * (`link_id` set null). Deleting a character or a workspace deletes the rest (cascade).
 */
export class Monetization1733530000000 implements MigrationInterface {
  name = 'Monetization1733530000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE affiliate_links (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        platform text NULL,
        destination_url text NOT NULL CHECK (char_length(destination_url) <= 2048),
        shortcode text NOT NULL CHECK (shortcode ~ '^[A-Za-z0-9_-]{3,32}$'),
        click_count bigint NOT NULL DEFAULT 0 CHECK (click_count >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT affiliate_links_shortcode_uq UNIQUE (shortcode)
      )`);
    await q.query('CREATE INDEX affiliate_links_character_idx ON affiliate_links (workspace_id, character_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX affiliate_links_character_fk_idx ON affiliate_links (character_id)');
    await q.query(`
      CREATE TABLE link_clicks_daily (
        link_id text NOT NULL REFERENCES affiliate_links(id) ON DELETE CASCADE,
        day date NOT NULL,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        clicks bigint NOT NULL CHECK (clicks >= 0),
        PRIMARY KEY (link_id, day)
      )`);
    await q.query('CREATE INDEX link_clicks_daily_workspace_idx ON link_clicks_daily (workspace_id, day, character_id)');
    await q.query('CREATE INDEX link_clicks_daily_character_idx ON link_clicks_daily (character_id)');
    await q.query(`
      CREATE TABLE link_click_flushes (
        batch_id text PRIMARY KEY,
        flushed_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX link_click_flushes_age_idx ON link_click_flushes (flushed_at)');
    await q.query(`
      CREATE TABLE revenue_entries (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        source text NOT NULL CHECK (source IN ('affiliate', 'brand_deal', 'subscription')),
        amount bigint NOT NULL CHECK (amount >= 0),
        currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
        occurred_at timestamptz NOT NULL,
        note text NULL CHECK (char_length(note) <= 500),
        link_id text NULL REFERENCES affiliate_links(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX revenue_entries_character_idx ON revenue_entries (workspace_id, character_id, occurred_at DESC, id DESC)');
    await q.query('CREATE INDEX revenue_entries_workspace_idx ON revenue_entries (workspace_id, occurred_at)');
    await q.query('CREATE INDEX revenue_entries_character_fk_idx ON revenue_entries (character_id)');
    await q.query('CREATE INDEX revenue_entries_link_idx ON revenue_entries (link_id) WHERE link_id IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE revenue_entries');
    await q.query('DROP TABLE link_click_flushes');
    await q.query('DROP TABLE link_clicks_daily');
    await q.query('DROP TABLE affiliate_links');
  }
}
