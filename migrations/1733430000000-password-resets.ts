import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Password reset tokens: only the SHA-256 of each token is kept. A user has at most one live row: a
 * new request replaces the older one, and a reset or a password change removes them all, so a spent
 * token is simply unknown.
 */
export class PasswordResets1733430000000 implements MigrationInterface {
  name = 'PasswordResets1733430000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE password_resets (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      token_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`);
    await q.query('CREATE UNIQUE INDEX password_resets_token_hash_uq ON password_resets (token_hash)');
    await q.query('CREATE INDEX password_resets_user_idx ON password_resets (user_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE password_resets');
  }
}
