import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Billing (docs/billing.md). Credits sit in two buckets of one balance: `allocation_remaining` of
 * `credits_balance` is this period's allocation (spent first, expires at `allocation_resets_at`),
 * the rest was purchased or given and never expires. `allocation_period` names the current
 * allocation's grant (alerts are once per threshold per period). Every grant is a row of
 * `credit_grants` keyed by what caused it (an invoice, a pack's checkout, a Starter anniversary),
 * so a grant happens once however many times its cause is delivered. `billing_events` keeps each
 * provider event id once; `billing_subscriptions` mirrors the provider's subscription of a
 * workspace. Existing balances stay purchased credits; their first allocation comes at the next
 * anniversary of the workspace's creation.
 */
export class Billing1733470000000 implements MigrationInterface {
  name = 'Billing1733470000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE workspaces
        ADD COLUMN allocation_granted integer NOT NULL DEFAULT 0,
        ADD COLUMN allocation_remaining integer NOT NULL DEFAULT 0,
        ADD COLUMN allocation_period text,
        ADD COLUMN allocation_anchor timestamptz,
        ADD COLUMN allocation_resets_at timestamptz,
        ADD COLUMN billing_customer_id text UNIQUE,
        ADD CONSTRAINT workspaces_allocation_check
          CHECK (allocation_remaining >= 0 AND allocation_remaining <= allocation_granted AND allocation_remaining <= credits_balance)`);
    await q.query(`
      UPDATE workspaces SET allocation_anchor = created_at,
        allocation_resets_at = created_at + ((extract(year FROM age(now(), created_at)) * 12 + extract(month FROM age(now(), created_at)))::int + 1) * interval '1 month'`);
    await q.query('ALTER TABLE workspaces ALTER COLUMN allocation_anchor SET DEFAULT now(), ALTER COLUMN allocation_anchor SET NOT NULL');
    await q.query('CREATE INDEX workspaces_allocation_due_idx ON workspaces (allocation_resets_at)');
    await q.query(`
      CREATE TABLE credit_grants (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        grant_key text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('allocation', 'top_up', 'pack')),
        credits integer NOT NULL CHECK (credits >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, grant_key)
      )`);
    await q.query(`
      CREATE TABLE credit_alerts (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        period text NOT NULL,
        threshold integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, period, threshold)
      )`);
    await q.query(`
      CREATE TABLE billing_subscriptions (
        workspace_id text PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
        provider_subscription_id text NOT NULL UNIQUE,
        plan text NOT NULL CHECK (plan IN ('pro', 'agency')),
        status text NOT NULL CHECK (status IN ('active', 'trialing', 'past_due', 'canceled', 'incomplete')),
        current_period_start timestamptz NOT NULL,
        current_period_end timestamptz NOT NULL,
        cancel_at_period_end boolean NOT NULL DEFAULT false,
        pending_plan text CHECK (pending_plan IN ('pro', 'agency')),
        synced_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE billing_events (
        id text PRIMARY KEY,
        type text NOT NULL,
        object_id text NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The offline sandbox's provider-side objects (customers, sessions, subscriptions, invoices).
    await q.query(`
      CREATE TABLE billing_sandbox_objects (
        id text PRIMARY KEY,
        kind text NOT NULL,
        customer_id text,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX billing_sandbox_objects_customer_idx ON billing_sandbox_objects (customer_id, kind, created_at DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE billing_sandbox_objects');
    await q.query('DROP TABLE billing_events');
    await q.query('DROP TABLE billing_subscriptions');
    await q.query('DROP TABLE credit_alerts');
    await q.query('DROP TABLE credit_grants');
    await q.query(`
      ALTER TABLE workspaces DROP CONSTRAINT workspaces_allocation_check,
        DROP COLUMN billing_customer_id, DROP COLUMN allocation_resets_at, DROP COLUMN allocation_anchor,
        DROP COLUMN allocation_period, DROP COLUMN allocation_remaining, DROP COLUMN allocation_granted`);
  }
}
