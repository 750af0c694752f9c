import type { MigrationInterface, QueryRunner } from 'typeorm';

const PLATFORMS = `('instagram', 'tiktok', 'twitter', 'youtube', 'pinterest')`;
const METRICS = `impressions integer, views integer, likes integer, comments integer, shares integer, saves integer,
        engagement_rate numeric(12, 6)`;

/**
 * Analytics (contract §15). Follower counts per account and day; per-post metric snapshots (one per
 * post and day, the day's latest sync wins; compacted to weekly after 90 days, see
 * src/modules/analytics/domain/retention.ts); the latest metrics of each post, upserted by each sync,
 * which the routes read; and the sync state per connection (the scheduler's claim, rate-limit
 * blocks) and per workspace (the on-demand throttle).
 */
export class Analytics1733100000000 implements MigrationInterface {
  name = 'Analytics1733100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE account_follower_days (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        platform text NOT NULL CHECK (platform IN ${PLATFORMS}),
        account_id text NOT NULL,
        day date NOT NULL,
        followers integer NOT NULL CHECK (followers >= 0),
        simulated boolean NOT NULL DEFAULT false,
        synced_at timestamptz NOT NULL,
        PRIMARY KEY (workspace_id, platform, account_id, day)
      )`);
    await q.query(`CREATE INDEX account_follower_days_day ON account_follower_days (workspace_id, day)`);
    await q.query(`
      CREATE TABLE post_metric_snapshots (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        scheduled_post_id text NOT NULL REFERENCES scheduled_posts(id) ON DELETE CASCADE,
        content_id text NOT NULL,
        character_id text NOT NULL,
        platform text NOT NULL CHECK (platform IN ${PLATFORMS}),
        account_id text NOT NULL,
        published_at timestamptz NOT NULL,
        ${METRICS},
        simulated boolean NOT NULL DEFAULT false,
        synced_day date NOT NULL,
        synced_at timestamptz NOT NULL,
        CONSTRAINT post_metric_snapshots_day_uq UNIQUE (scheduled_post_id, synced_day)
      )`);
    await q.query(`CREATE INDEX post_metric_snapshots_sweep ON post_metric_snapshots (workspace_id, synced_day)`);
    await q.query(`
      CREATE TABLE post_metrics_latest (
        scheduled_post_id text PRIMARY KEY REFERENCES scheduled_posts(id) ON DELETE CASCADE,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        content_id text NOT NULL,
        character_id text NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
        platform text NOT NULL CHECK (platform IN ${PLATFORMS}),
        account_id text NOT NULL,
        remote_url text,
        published_at timestamptz NOT NULL,
        ${METRICS},
        simulated boolean NOT NULL DEFAULT false,
        synced_at timestamptz NOT NULL
      )`);
    // The overview and the posts list filter by workspace (and character) over a published range, then sort.
    await q.query(`CREATE INDEX post_metrics_latest_published ON post_metrics_latest (workspace_id, published_at DESC)`);
    await q.query(`CREATE INDEX post_metrics_latest_character ON post_metrics_latest (workspace_id, character_id, published_at DESC)`);
    await q.query(`CREATE INDEX post_metrics_latest_engagement ON post_metrics_latest (workspace_id, engagement_rate DESC NULLS LAST)`);
    await q.query(`CREATE INDEX post_metrics_latest_views ON post_metrics_latest (workspace_id, views DESC NULLS LAST)`);
    await q.query(`CREATE INDEX post_metrics_latest_likes ON post_metrics_latest (workspace_id, likes DESC NULLS LAST)`);
    await q.query(`CREATE INDEX post_metrics_latest_synced ON post_metrics_latest (workspace_id, synced_at)`);
    await q.query(`
      CREATE TABLE analytics_sync_state (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        platform text NOT NULL CHECK (platform IN ${PLATFORMS}),
        last_synced_at timestamptz,
        next_due_at timestamptz NOT NULL,
        blocked_until timestamptz,
        last_error jsonb,
        PRIMARY KEY (workspace_id, platform)
      )`);
    await q.query(`CREATE INDEX analytics_sync_state_due ON analytics_sync_state (next_due_at)`);
    await q.query(`
      CREATE TABLE analytics_sync_requests (
        workspace_id text PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
        last_requested_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE analytics_sync_requests`);
    await q.query(`DROP TABLE analytics_sync_state`);
    await q.query(`DROP TABLE post_metrics_latest`);
    await q.query(`DROP TABLE post_metric_snapshots`);
    await q.query(`DROP TABLE account_follower_days`);
  }
}
