import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { newId } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { AllocationState } from '../domain/allocation.js';
import { CreditLedgerRepository } from './credit-ledger.repository.js';

/** What caused a grant; one grant per key and workspace, however often its cause is delivered. */
export type GrantKind = 'allocation' | 'top_up' | 'pack';

/** A workspace's allocation and the balance it is part of. */
export interface AllocationRecord extends AllocationState {
  balance: number;
  resetsAt: Date | null;
  anchor: Date;
}

interface AllocationRow {
  credits_balance: number;
  allocation_granted: number;
  allocation_remaining: number;
  allocation_period: string | null;
  allocation_resets_at: Date | null;
  allocation_anchor: Date;
}

const COLUMNS = 'credits_balance, allocation_granted, allocation_remaining, allocation_period, allocation_resets_at, allocation_anchor';

/**
 * The allocation bucket: periods opened (what was left of the last expires, the new grant comes
 * in), top-ups on an upgrade, the Starter anniversaries in bulk, and the record of each grant's
 * cause and of each low-credit alert sent. The ledger gets an entry for every movement, so the sum
 * of a workspace's ledger stays its balance.
 */
@Injectable()
export class AllocationsRepository {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly ledger: CreditLedgerRepository,
  ) {}

  async get(workspaceId: string, tx?: Tx): Promise<AllocationRecord | null> {
    const rows: AllocationRow[] = await (tx ?? this.ds.manager).query(`SELECT ${COLUMNS} FROM workspaces WHERE id = $1`, [workspaceId]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** Records that `key` caused a grant; false when it already had (the grant must not happen twice). */
  async claimGrant(tx: Tx, workspaceId: string, key: string, kind: GrantKind, credits: number): Promise<boolean> {
    const rows: unknown[] = await tx.query(
      'INSERT INTO credit_grants (workspace_id, grant_key, kind, credits) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING grant_key',
      [workspaceId, key, kind, credits],
    );
    return rows.length === 1;
  }

  /**
   * Opens a period: what is left of the last allocation expires (`allocation_expired`), `credits`
   * are granted (`allocation_granted`) until `resetsAt`. Purchased credits stay. The caller claimed
   * the grant's key in the same transaction.
   */
  async openPeriod(tx: Tx, workspaceId: string, period: { key: string; credits: number; resetsAt: Date | null }): Promise<void> {
    const rows: Array<{ allocation_remaining: number }> = await tx.query('SELECT allocation_remaining FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
    const left = rows[0]?.allocation_remaining ?? 0;
    if (left > 0) {
      await this.ledger.move(tx, { workspaceId, amount: -left, reason: 'allocation_expired', refType: 'grant', refId: period.key }, true);
    }
    await tx.query(
      `WITH moved AS (
         UPDATE workspaces SET credits_balance = credits_balance + $2, allocation_granted = $2, allocation_remaining = $2,
           allocation_period = $3, allocation_resets_at = $4, updated_at = now()
         WHERE id = $1 RETURNING id, credits_balance)
       INSERT INTO credit_ledger (id, workspace_id, amount, balance_after, reason, ref_type, ref_id, created_at)
       SELECT $5, id, $2, credits_balance, 'allocation_granted', 'grant', $3, clock_timestamp() FROM moved WHERE $2 > 0`,
      [workspaceId, period.credits, period.key, period.resetsAt, newId('led')],
    );
  }

  /**
   * Raises this period's allocation to `credits` (an upgrade mid-period): the difference is granted
   * at once, the period and its end stay. Nothing when the allocation is already that large.
   */
  async topUp(tx: Tx, workspaceId: string, key: string, credits: number): Promise<number> {
    const rows: Array<{ added: number }> = await tx.query(
      `WITH old AS (SELECT id, allocation_granted FROM workspaces WHERE id = $1 FOR UPDATE),
       moved AS (
         UPDATE workspaces w SET credits_balance = w.credits_balance + ($2 - old.allocation_granted),
           allocation_remaining = w.allocation_remaining + ($2 - old.allocation_granted), allocation_granted = $2, updated_at = now()
         FROM old WHERE w.id = old.id AND old.allocation_granted < $2
         RETURNING w.id, w.credits_balance, $2 - old.allocation_granted AS added),
       entry AS (
         INSERT INTO credit_ledger (id, workspace_id, amount, balance_after, reason, ref_type, ref_id, created_at)
         SELECT $4, id, added, credits_balance, 'allocation_granted', 'grant', $3, clock_timestamp() FROM moved)
       SELECT added FROM moved`,
      [workspaceId, credits, key, newId('led')],
    );
    return rows[0]?.added ?? 0;
  }

  /**
   * Opens the next period of up to `batch` workspaces whose allocation fell due and that have no
   * live subscription (Starter, or a subscription that ended), in one statement: rows are claimed
   * with `FOR UPDATE SKIP LOCKED`, so workers running it side by side share the due workspaces,
   * and each period's grant key (`starter:<n>`, the n-th month from the workspace's anchor) makes a
   * period granted once even if a claim is repeated. Every due row moves its end past `now`, granted
   * or not. Answers how many were granted and how many were due.
   */
  async openDueStarterPeriods(now: Date, credits: number, batch: number): Promise<{ due: number; granted: number }> {
    const ids = Array.from({ length: batch * 2 }, () => newId('led'));
    const rows: Array<{ due: number; granted: number }> = await this.ds.query(
      `WITH due AS (
         SELECT id, credits_balance, allocation_remaining,
           allocation_anchor AT TIME ZONE 'UTC' AS anchor_utc
         FROM workspaces w
         WHERE allocation_resets_at <= $1
           AND NOT EXISTS (SELECT 1 FROM billing_subscriptions s WHERE s.workspace_id = w.id AND s.status IN ('active', 'trialing', 'past_due'))
         ORDER BY allocation_resets_at
         LIMIT $3
         FOR UPDATE SKIP LOCKED),
       months AS (
         SELECT d.*, ((extract(year FROM $1 AT TIME ZONE 'UTC') - extract(year FROM anchor_utc)) * 12
                    + (extract(month FROM $1 AT TIME ZONE 'UTC') - extract(month FROM anchor_utc)))::int AS m
         FROM due d),
       periods AS (
         SELECT months.*, CASE WHEN anchor_utc + m * interval '1 month' > $1 AT TIME ZONE 'UTC' THEN m ELSE m + 1 END AS n
         FROM months),
       claimed AS (
         INSERT INTO credit_grants (workspace_id, grant_key, kind, credits)
         SELECT id, 'starter:' || n, 'allocation', $2 FROM periods
         ON CONFLICT DO NOTHING RETURNING workspace_id, grant_key),
       moved AS (
         UPDATE workspaces w SET
           credits_balance = CASE WHEN c.grant_key IS NULL THEN w.credits_balance ELSE p.credits_balance - p.allocation_remaining + $2 END,
           allocation_granted = CASE WHEN c.grant_key IS NULL THEN w.allocation_granted ELSE $2 END,
           allocation_remaining = CASE WHEN c.grant_key IS NULL THEN w.allocation_remaining ELSE $2 END,
           allocation_period = COALESCE(c.grant_key, w.allocation_period),
           allocation_resets_at = (p.anchor_utc + p.n * interval '1 month') AT TIME ZONE 'UTC',
           updated_at = now()
         FROM periods p LEFT JOIN claimed c ON c.workspace_id = p.id
         WHERE w.id = p.id
         RETURNING w.id, w.credits_balance, c.grant_key, p.allocation_remaining AS expired, p.credits_balance AS before),
       numbered AS (
         SELECT moved.*, row_number() OVER (ORDER BY id) AS i FROM moved WHERE grant_key IS NOT NULL),
       entries AS (
         INSERT INTO credit_ledger (id, workspace_id, amount, balance_after, reason, ref_type, ref_id, created_at)
         SELECT e.id, n.id, e.amount, e.balance_after, e.reason, 'grant', n.grant_key, now() + e.k * interval '1 microsecond'
         FROM numbered n CROSS JOIN LATERAL (VALUES
           (0, ($4::text[])[n.i], -n.expired, n.before - n.expired, 'allocation_expired'),
           (1, ($5::text[])[n.i], $2::int, n.credits_balance, 'allocation_granted')
         ) AS e (k, id, amount, balance_after, reason)
         WHERE e.amount <> 0)
       SELECT (SELECT count(*) FROM moved)::int AS due, (SELECT count(*) FROM numbered)::int AS granted`,
      [now, credits, batch, ids.slice(0, batch), ids.slice(batch)],
    );
    return rows[0];
  }

  /** Records the alerts of `thresholds` for the period; answers those not recorded before. */
  async recordAlerts(tx: Tx, workspaceId: string, period: string, thresholds: number[]): Promise<number[]> {
    const rows: Array<{ threshold: number }> = await tx.query(
      `INSERT INTO credit_alerts (workspace_id, period, threshold) SELECT $1, $2, unnest($3::int[])
       ON CONFLICT DO NOTHING RETURNING threshold`,
      [workspaceId, period, thresholds],
    );
    return rows.map((r) => r.threshold);
  }

  /**
   * Workspaces whose allocation is at or below 25 % with an alert of this period missing (a debit's
   * alert lost to a crash between its commit and the alert's): the pass raises them again.
   */
  async missingAlerts(limit: number): Promise<Array<{ workspaceId: string } & AllocationState & { balance: number; resetsAt: Date | null }>> {
    const rows: Array<AllocationRow & { id: string }> = await this.ds.query(
      `SELECT id, ${COLUMNS} FROM workspaces w
       WHERE allocation_granted > 0 AND allocation_period IS NOT NULL AND allocation_remaining * 4 <= allocation_granted
         AND NOT EXISTS (SELECT 1 FROM credit_alerts a WHERE a.workspace_id = w.id AND a.period = w.allocation_period AND a.threshold = 25)
       LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ workspaceId: r.id, ...toRecord(r) }));
  }
}

function toRecord(r: AllocationRow): AllocationRecord {
  return {
    balance: r.credits_balance,
    granted: r.allocation_granted,
    remaining: r.allocation_remaining,
    period: r.allocation_period,
    resetsAt: r.allocation_resets_at,
    anchor: r.allocation_anchor,
  };
}
