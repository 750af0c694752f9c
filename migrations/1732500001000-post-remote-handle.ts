import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The platform's id of a publish attempt whose outcome is not known yet (TikTok's `publish_id`):
 * kept with the post so a reconciliation, even after a crash, asks about exactly that attempt.
 */
export class PostRemoteHandle1732500001000 implements MigrationInterface {
  name = 'PostRemoteHandle1732500001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE scheduled_posts ADD COLUMN remote_handle text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE scheduled_posts DROP COLUMN remote_handle');
  }
}
