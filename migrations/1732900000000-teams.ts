import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Teams (contract §14): a user belongs to workspaces through memberships with a role. Every
 * existing user becomes the owner of the workspace it had, and every session keeps working in it:
 * a session now names its workspace (a token pair is for one workspace; switching starts another).
 * The audit log records who changed what, in the transaction of the change.
 */
export class Teams1732900000000 implements MigrationInterface {
  name = 'Teams1732900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE memberships (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('viewer', 'editor', 'admin', 'owner')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, user_id)
      )`);
    await q.query(`CREATE INDEX memberships_user_idx ON memberships (user_id, created_at)`);
    await q.query(`INSERT INTO memberships (workspace_id, user_id, role, created_at, updated_at) SELECT workspace_id, id, 'owner', created_at, created_at FROM users`);
    await q.query(`ALTER TABLE sessions ADD COLUMN workspace_id text REFERENCES workspaces(id) ON DELETE CASCADE`);
    await q.query(`UPDATE sessions s SET workspace_id = u.workspace_id FROM users u WHERE u.id = s.user_id`);
    await q.query(`ALTER TABLE sessions ALTER COLUMN workspace_id SET NOT NULL`);
    // Append-only: the API has no way to change or remove an entry; a workspace's entries go with it.
    await q.query(`
      CREATE TABLE audit_log (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        actor_user_id text,
        actor_email text,
        action text NOT NULL,
        target_type text NOT NULL,
        target_id text,
        details jsonb NOT NULL DEFAULT '{}',
        request_id text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX audit_log_workspace_idx ON audit_log (workspace_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_log`);
    await q.query(`ALTER TABLE sessions DROP COLUMN workspace_id`);
    await q.query(`DROP TABLE memberships`);
  }
}
