import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { newId, offsetOf, type Page, type PageRequest } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
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

/** The workspace balance and its append-only ledger. Every write runs inside the caller's transaction. */
@Injectable()
export class CreditLedgerRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Moves the balance by `amount` (negative: a debit) and appends its ledger row, in one statement:
   * the workspace row stays locked for one round trip less, which is what concurrent paid actions
   * of one workspace queue on. With `requireCover`, the update only happens if the balance covers
   * the debit (a conditional update: under any concurrency the balance never goes below zero).
   * Answers the ledger row, or null when nothing moved (not covered, or no such workspace).
   */
  async move(tx: Tx, e: Omit<LedgerEntry, 'id' | 'createdAt' | 'balanceAfter'>, requireCover: boolean): Promise<LedgerEntry | null> {
    // clock_timestamp(), not now(): several entries of one transaction still sort in the order they were made.
    const rows: LedgerRow[] = await tx.query(
      `WITH moved AS (
         UPDATE workspaces SET credits_balance = credits_balance + $3, updated_at = now()
         WHERE id = $2 AND (NOT $7::boolean OR credits_balance + $3 >= 0)
         RETURNING credits_balance)
       INSERT INTO credit_ledger (id, workspace_id, amount, balance_after, reason, ref_type, ref_id, created_at)
       SELECT $1, $2, $3, credits_balance, $4, $5, $6, clock_timestamp() FROM moved
       RETURNING ${LEDGER_COLUMNS}`,
      [newId('led'), e.workspaceId, e.amount, e.reason, e.refType, e.refId, requireCover],
    );
    return rows[0] ? toEntry(rows[0]) : null;
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
