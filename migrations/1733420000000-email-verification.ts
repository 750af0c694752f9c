import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Email verification and email change. `users.email_verified_at`: when the current address was
 * proven (null: not yet). Accounts that exist before this migration were never asked to verify,
 * so they count as verified from their creation; only accounts made afterwards start unverified.
 *
 * `email_tokens`: one-time tokens mailed to an address, stored as SHA-256 hashes only. `purpose`
 * `verify` proves the user's current address (`email` is that address when the token was made, so
 * a token for an address the user has since left proves nothing); `change` proves `email` is the
 * user's new address. `used_at` makes a token single use; rows also count resends per user.
 */
export class EmailVerification1733420000000 implements MigrationInterface {
  name = 'EmailVerification1733420000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE users ADD COLUMN email_verified_at timestamptz NULL');
    await q.query('UPDATE users SET email_verified_at = created_at');
    await q.query(`CREATE TABLE email_tokens (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      purpose text NOT NULL CHECK (purpose IN ('verify', 'change')),
      token_hash text NOT NULL,
      email text NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query('CREATE UNIQUE INDEX email_tokens_hash_uq ON email_tokens (token_hash)');
    await q.query('CREATE INDEX email_tokens_user_idx ON email_tokens (user_id, purpose, created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE email_tokens');
    await q.query('ALTER TABLE users DROP COLUMN email_verified_at');
  }
}
