import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Invitations can end without being accepted: revoked by the workspace or declined by the invitee.
 * The row stays (the audit log points at it) and simply stops being pending. The invitee's inbox
 * reads pending invitations by email, so that read gets its own partial index.
 */
export class InvitationOutcomes1733210000000 implements MigrationInterface {
  name = 'InvitationOutcomes1733210000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invitations ADD COLUMN revoked_at timestamptz`);
    await q.query(`ALTER TABLE invitations ADD COLUMN revoked_by text REFERENCES users(id) ON DELETE SET NULL`);
    await q.query(`ALTER TABLE invitations ADD COLUMN declined_at timestamptz`);
    await q.query(
      `CREATE INDEX invitations_pending_email_idx ON invitations (lower(email), created_at)
       WHERE accepted_at IS NULL AND revoked_at IS NULL AND declined_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX invitations_pending_email_idx`);
    await q.query(`ALTER TABLE invitations DROP COLUMN declined_at`);
    await q.query(`ALTER TABLE invitations DROP COLUMN revoked_by`);
    await q.query(`ALTER TABLE invitations DROP COLUMN revoked_at`);
  }
}
