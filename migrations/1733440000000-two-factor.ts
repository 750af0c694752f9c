import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two-factor sign-in (TOTP). The secret lives on the user, sealed (bound to the user id): pending
 * while `totp_enabled_at` is null, in force once set. `totp_last_step` is the newest 30-second step
 * a code was accepted for, so a code (or an older one) is never accepted twice. Recovery codes and
 * the short-lived tokens between the password and the code step are stored as SHA-256 hashes only.
 * A workspace may require two-factor of its members (`require_mfa`, set by an owner).
 */
export class TwoFactor1733440000000 implements MigrationInterface {
  name = 'TwoFactor1733440000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users
      ADD COLUMN totp_secret_sealed text NULL,
      ADD COLUMN totp_enabled_at timestamptz NULL,
      ADD COLUMN totp_last_step bigint NULL`);
    await q.query('ALTER TABLE workspaces ADD COLUMN require_mfa boolean NOT NULL DEFAULT false');
    await q.query(`CREATE TABLE mfa_recovery_codes (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      code_hash text NOT NULL,
      used_at timestamptz NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query('CREATE UNIQUE INDEX mfa_recovery_codes_user_hash_uq ON mfa_recovery_codes (user_id, code_hash)');
    await q.query(`CREATE TABLE mfa_challenges (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      token_hash text NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query('CREATE UNIQUE INDEX mfa_challenges_token_hash_uq ON mfa_challenges (token_hash)');
    await q.query('CREATE INDEX mfa_challenges_user_idx ON mfa_challenges (user_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE mfa_challenges');
    await q.query('DROP TABLE mfa_recovery_codes');
    await q.query('ALTER TABLE workspaces DROP COLUMN require_mfa');
    await q.query('ALTER TABLE users DROP COLUMN totp_secret_sealed, DROP COLUMN totp_enabled_at, DROP COLUMN totp_last_step');
  }
}
