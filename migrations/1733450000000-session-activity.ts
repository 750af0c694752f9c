import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sessions a user can see and end: `last_used_at` (set at sign-in, moved by each refresh; never by
 * an ordinary request), and the per-user choice of an email on a sign-in from a new device.
 * Existing sessions were last used, as far as anyone knows, when they were made.
 */
export class SessionActivity1733450000000 implements MigrationInterface {
  name = 'SessionActivity1733450000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE sessions ADD COLUMN last_used_at timestamptz');
    await q.query('UPDATE sessions SET last_used_at = created_at');
    await q.query('ALTER TABLE sessions ALTER COLUMN last_used_at SET DEFAULT now(), ALTER COLUMN last_used_at SET NOT NULL');
    // The list (a user's live sessions, most recently used first) and the new-device check (a user's
    // sessions used in the last 90 days) both read by user and last use.
    await q.query('CREATE INDEX sessions_user_last_used_idx ON sessions (user_id, last_used_at DESC)');
    await q.query('ALTER TABLE users ADD COLUMN sign_in_alerts boolean NOT NULL DEFAULT false');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE users DROP COLUMN sign_in_alerts');
    await q.query('DROP INDEX sessions_user_last_used_idx');
    await q.query('ALTER TABLE sessions DROP COLUMN last_used_at');
  }
}
