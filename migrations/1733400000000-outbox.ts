import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The transactional outbox: an event recorded in the transaction of the change that caused it,
 * delivered after commit, at least once, to every subscriber of its type. `delivered_to` names the
 * subscribers done with it, so a retry runs only the ones that failed; `available_at` is the next
 * try (back-off), `claimed_until` a dispatcher's lease. `secret_sealed` (a link's token, sealed with
 * the event id) is cleared once every subscriber is done.
 */
export class Outbox1733400000000 implements MigrationInterface {
  name = 'Outbox1733400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE outbox_events (
      id text PRIMARY KEY,
      type text NOT NULL,
      workspace_id text NULL,
      payload jsonb NOT NULL,
      secret_sealed text NULL,
      occurred_at timestamptz NOT NULL DEFAULT now(),
      available_at timestamptz NOT NULL DEFAULT now(),
      claimed_until timestamptz NULL,
      attempts integer NOT NULL DEFAULT 0,
      delivered_to text[] NOT NULL DEFAULT '{}',
      last_error text NULL,
      done_at timestamptz NULL
    )`);
    await q.query('CREATE INDEX outbox_events_due_idx ON outbox_events (available_at) WHERE done_at IS NULL');
    await q.query('CREATE INDEX outbox_events_workspace_idx ON outbox_events (workspace_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE outbox_events');
  }
}
