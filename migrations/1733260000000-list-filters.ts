import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dashboard's lists, newest first within a workspace: `GET /jobs` by status, type and
 * character; `GET /content` unfiltered, by platform and by type (status and character already
 * have `content_items_queue_idx` and `content_items_character_idx`); `GET /characters?niche=`
 * by niche in any case. The name search of `GET /characters?q=` reads a workspace's characters,
 * which the plan caps at 100, so it has no index.
 */
export class ListFilters1733260000000 implements MigrationInterface {
  name = 'ListFilters1733260000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX jobs_workspace_status_idx ON jobs (workspace_id, status, created_at DESC, id DESC)');
    await q.query('CREATE INDEX jobs_workspace_type_idx ON jobs (workspace_id, job_type, created_at DESC, id DESC)');
    await q.query('CREATE INDEX jobs_workspace_character_idx ON jobs (workspace_id, character_id, created_at DESC, id DESC) WHERE character_id IS NOT NULL');
    await q.query('CREATE INDEX content_items_newest_idx ON content_items (workspace_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX content_items_platform_idx ON content_items (workspace_id, platform, created_at DESC)');
    await q.query('CREATE INDEX content_items_type_idx ON content_items (workspace_id, content_type, created_at DESC)');
    await q.query('CREATE INDEX characters_niche_idx ON characters (workspace_id, lower(niche))');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const index of ['characters_niche_idx', 'content_items_type_idx', 'content_items_platform_idx', 'content_items_newest_idx',
      'jobs_workspace_character_idx', 'jobs_workspace_type_idx', 'jobs_workspace_status_idx']) {
      await q.query(`DROP INDEX ${index}`);
    }
  }
}
