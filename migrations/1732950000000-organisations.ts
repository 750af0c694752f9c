import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Organisations (contract §14): invitations to join a workspace, and a workspace slug. Only the
 * SHA-256 hash of an invitation token is kept: the token itself is shown once, to the inviter.
 */
export class Organisations1732950000000 implements MigrationInterface {
  name = 'Organisations1732950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE invitations (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        email text NOT NULL,
        role text NOT NULL CHECK (role IN ('viewer', 'editor', 'admin', 'owner')),
        token_hash text NOT NULL UNIQUE,
        invited_by text REFERENCES users(id) ON DELETE SET NULL,
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_by text REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX invitations_workspace_idx ON invitations (workspace_id, created_at)`);
    // Nullable: a workspace has no slug until an admin picks one; unique among those that do.
    await q.query(`ALTER TABLE workspaces ADD COLUMN slug text`);
    await q.query(`ALTER TABLE workspaces ADD CONSTRAINT workspaces_slug_uq UNIQUE (slug)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workspaces DROP COLUMN slug`);
    await q.query(`DROP TABLE invitations`);
  }
}
