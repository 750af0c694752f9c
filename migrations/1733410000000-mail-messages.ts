import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every transactional message, one row per (outbox event, recipient): a re-delivered event finds
 * its row and sends nothing twice. `provider_id`: the SMTP Message-ID, or the offline adapter's id.
 * `text_body`/`html_body` are kept only by the offline adapter, for the development mailbox.
 */
export class MailMessages1733410000000 implements MigrationInterface {
  name = 'MailMessages1733410000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE mail_messages (
      id text PRIMARY KEY,
      event_id text NOT NULL,
      workspace_id text NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      user_id text NULL REFERENCES users(id) ON DELETE CASCADE,
      to_address text NOT NULL,
      template text NOT NULL,
      subject text NOT NULL,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
      provider_id text NULL,
      attempts integer NOT NULL DEFAULT 0,
      last_error text NULL,
      text_body text NULL,
      html_body text NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz NULL,
      CONSTRAINT mail_messages_event_to_key UNIQUE (event_id, to_address)
    )`);
    await q.query('CREATE INDEX mail_messages_mailbox_idx ON mail_messages (lower(to_address), created_at DESC) WHERE text_body IS NOT NULL');
    await q.query('CREATE INDEX mail_messages_workspace_idx ON mail_messages (workspace_id)');
    await q.query('CREATE INDEX mail_messages_user_idx ON mail_messages (user_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE mail_messages');
  }
}
