import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The calendar shows published items and posts on the day they were published: look-ups by
 * `published_at` within a workspace, beside the planned and scheduled ones.
 */
export class CalendarPublishedIndex1732512002000 implements MigrationInterface {
  name = 'CalendarPublishedIndex1732512002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX content_items_published_idx ON content_items (workspace_id, published_at) WHERE published_at IS NOT NULL');
    await q.query('CREATE INDEX scheduled_posts_published ON scheduled_posts (workspace_id, published_at) WHERE published_at IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX scheduled_posts_published');
    await q.query('DROP INDEX content_items_published_idx');
  }
}
