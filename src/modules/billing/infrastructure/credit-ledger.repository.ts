import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { newId, offsetOf, type Page, type PageRequest } from '../../../core/index.js';
import { isCheckViolation, SqlParams, type ComposedStatement, type Tx } from '../../../platform/database/index.js';
import type { AllocationState } from '../domain/allocation.js';
import type { LedgerEntry } from '../domain/credits.js';

interface LedgerRow {
  id: string;
  workspace_id: string;
  amount: number;
  balance_after: number;
  reason: string;
  ref_type: string | null;
  ref_id: string | null;
  created_at: Date;
}

const LEDGER_COLUMNS = 'id, workspace_id, amount, balance_after, reason, ref_type, ref_id, created_at';

/** What a movement left: its ledger entry and the allocation bucket after it. */
export interface Moved {
  entry: LedgerEntry;
  allocation: AllocationState;
}

interface AllocationRow {
  allocation_granted: number;
  allocation_remaining: number;
  allocation_period: string | null;
  allocation_resets_at: Date | null;
}

/** The allocation columns the balance update answers (as `moved`), for the low-credit alerts. */
const ALLOCATION_COLUMNS = 'allocation_granted, allocation_remaining, allocation_period, allocation_resets_at';

/** The workspace balance and its append-only ledger. Every write runs inside the caller's transaction or statement. */
@Injectable()
export class CreditLedgerRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Moves the balance by `amount` (negative: a debit) and appends its ledger row, in one statement:
   * the workspace row stays locked for one round trip less, which is what concurrent paid actions
   * of one workspace queue on. With `requireCover`, the update only happens if the balance covers
   * the debit (a conditional update: under any concurrency the balance never goes below zero).
   * Answers the ledger row and the allocation after it, or null when nothing moved (not covered,
   * or no such workspace).
   */
  async move(tx: Tx, e: Movement, requireCover: boolean): Promise<Moved | null> {
    const p = new SqlParams();
    const { update, append } = movementSql(p, e, requireCover, 'moved');
    const rows: Array<LedgerRow & AllocationRow> = await tx.query(
      `WITH moved AS (${update}), entry AS (${append} RETURNING ${LEDGER_COLUMNS})
       SELECT entry.*, ${ALLOCATION_COLUMNS} FROM entry CROSS JOIN moved`,
      p.values,
    );
    return rows[0] ? { entry: toEntry(rows[0]), allocation: toAllocation(rows[0]) } : null;
  }

  /**
   * Runs `statement` in autocommit with the movement (if any) added as two of its common table
   * expressions: work that must commit with its charge, without the workspace row held across a
   * round trip to this process. There is no cover condition: the balance's CHECK constraint fails
   * the whole statement instead, so nothing else it writes survives an uncovered debit (see
   * `isUncovered`). Answers the balance and allocation the debit left, null without a movement.
   */
  async runWith(statement: ComposedStatement, e: Movement | null): Promise<{ balance: number; allocation: AllocationState } | null> {
    if (!e) {
      await statement.run(this.ds);
      return null;
    }
    statement.withParts((p) => {
      const { update, append } = movementSql(p, e, false, 'credit_moved');
      return [['credit_moved', update], ['credit_entry', append]];
    });
    const rows = await statement.run<AllocationRow & { credits_balance: number }>(this.ds, `SELECT credits_balance, ${ALLOCATION_COLUMNS} FROM credit_moved`);
    return rows[0] ? { balance: rows[0].credits_balance, allocation: toAllocation(rows[0]) } : null;
  }

  async balance(workspaceId: string, tx?: Tx): Promise<number | null> {
    const rows: Array<{ credits_balance: number }> = await (tx ?? this.ds.manager).query(
      'SELECT credits_balance FROM workspaces WHERE id = $1',
      [workspaceId],
    );
    return rows[0]?.credits_balance ?? null;
  }

  /** Newest first. */
  async list(workspaceId: string, req: PageRequest): Promise<Page<LedgerEntry>> {
    const rows = await this.ds.query<LedgerRow[]>(
      `SELECT ${LEDGER_COLUMNS} FROM credit_ledger WHERE workspace_id = $1
       ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [workspaceId, req.pageSize, offsetOf(req)],
    );
    const counted = await this.ds.query<Array<{ total: number }>>(
      'SELECT count(*)::int AS total FROM credit_ledger WHERE workspace_id = $1',
      [workspaceId],
    );
    return { items: rows.map(toEntry), page: req.page, pageSize: req.pageSize, total: counted[0].total };
  }
}

/** What a movement asks for; the repository adds the id, the time and the balance after. */
type Movement = Omit<LedgerEntry, 'id' | 'createdAt' | 'balanceAfter'>;

/**
 * The constraints an uncovered debit breaks: the balance below zero (migrations/…-foundation.ts),
 * and so the allocation above the balance (…-billing.ts); PostgreSQL names whichever it checks first.
 */
const UNCOVERED = ['workspaces_credits_balance_check', 'workspaces_allocation_check'];

/** Whether a statement failed because a debit it carried would have taken the balance below zero. */
export function isUncovered(err: unknown): boolean {
  return UNCOVERED.some((constraint) => isCheckViolation(err, constraint));
}

/**
 * The balance update (to run as the CTE named `moved`, answering the workspace's id, new balance and
 * allocation) and the INSERT of its ledger row selecting from it; both use one bound amount. A debit
 * takes the period's allocation first (`allocation_remaining` goes down with the balance, never
 * below 0), then purchased credits; credits added (refunds, payouts, grants by hand) are purchased
 * credits: they never expire. Allocations move through `AllocationsRepository`, not here.
 */
function movementSql(p: SqlParams, e: Movement, requireCover: boolean, moved: string): { update: string; append: string } {
  const amount = p.bind(e.amount);
  const cover = requireCover ? ` AND credits_balance + ${amount} >= 0` : '';
  const allocation = e.amount < 0 ? `GREATEST(allocation_remaining + ${amount}, 0)` : 'allocation_remaining';
  const update = `UPDATE workspaces SET credits_balance = credits_balance + ${amount}, allocation_remaining = ${allocation}, updated_at = now()
    WHERE id = ${p.bind(e.workspaceId)}${cover} RETURNING id, credits_balance, ${ALLOCATION_COLUMNS}`;
  // clock_timestamp(), not now(): several entries of one transaction still sort in the order they were made.
  const append = `INSERT INTO credit_ledger (id, workspace_id, amount, balance_after, reason, ref_type, ref_id, created_at)
    SELECT ${p.bind(newId('led'))}, id, ${amount}, credits_balance, ${p.bind(e.reason)}, ${p.bind(e.refType)}, ${p.bind(e.refId)}, clock_timestamp()
    FROM ${moved}`;
  return { update, append };
}

function toAllocation(r: AllocationRow): AllocationState {
  return { granted: r.allocation_granted, remaining: r.allocation_remaining, period: r.allocation_period, resetsAt: r.allocation_resets_at };
}

function toEntry(r: LedgerRow): LedgerEntry {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    amount: r.amount,
    balanceAfter: r.balance_after,
    reason: r.reason,
    refType: r.ref_type,
    refId: r.ref_id,
    createdAt: r.created_at,
  };
}
