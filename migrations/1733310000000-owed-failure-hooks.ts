import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A failed job whose failure hook (its refund) could not commit keeps the debt on its row, written
 * in the transaction that fails the job: `failure_hook_due_at` is when the workers try the hook
 * again (null: nothing owed), `failure_hook_tries` how often it failed, for the back-off.
 */
export class OwedFailureHooks1733310000000 implements MigrationInterface {
  name = 'OwedFailureHooks1733310000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE jobs ADD COLUMN failure_hook_due_at timestamptz NULL');
    await q.query('ALTER TABLE jobs ADD COLUMN failure_hook_tries integer NOT NULL DEFAULT 0');
    await q.query('CREATE INDEX jobs_owed_hooks_idx ON jobs (failure_hook_due_at) WHERE failure_hook_due_at IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX jobs_owed_hooks_idx');
    await q.query('ALTER TABLE jobs DROP COLUMN failure_hook_tries');
    await q.query('ALTER TABLE jobs DROP COLUMN failure_hook_due_at');
  }
}
