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
   * Takes `amount` only if the balance covers it, in one conditional update: under any concurrency
   * the balance cannot go below zero. Answers the new balance, or null when nothing was taken.
   */
  async subtractIfCovered(tx: Tx, workspaceId: string, amount: number): Promise<number | null> {
    // The postgres driver answers an UPDATE with [rows, rowCount].
    const [rows]: [Array<{ credits_balance: number }>, number] = await tx.query(
      `UPDATE workspaces SET credits_balance = credits_balance - $1, updated_at = now()
       WHERE id = $2 AND credits_balance >= $1
       RETURNING credits_balance`,
      [amount, workspaceId],
    );
    return rows[0]?.credits_balance ?? null;
  }

  /** Adds `amount`; null when the workspace does not exist. */
  async add(tx: Tx, workspaceId: string, amount: number): Promise<number | null> {
    const [rows]: [Array<{ credits_balance: number }>, number] = await tx.query(
      `UPDATE workspaces SET credits_balance = credits_balance + $1, updated_at = now()
       WHERE id = $2
       RETURNING credits_balance`,
      [amount, workspaceId],
    );
    return rows[0]?.credits_balance ?? null;
  }

  async balance(workspaceId: string, tx?: Tx): Promise<number | null> {
    const rows: Array<{ credits_balance: number }> = await (tx ?? this.ds.manager).query(
      'SELECT credits_balance FROM workspaces WHERE id = $1',
      [workspaceId],
    );
    return rows[0]?.credits_balance ?? null;
  }

  async append(tx: Tx, e: Omit<LedgerEntry, 'id' | 'createdAt'>): Promise<LedgerEntry> {
    // clock_timestamp(), not now(): several entries of one transaction still sort in the order they were made.
    const rows: LedgerRow[] = await tx.query(
      `INSERT INTO credit_ledger (id, workspace_id, amount, balance_after, reason, ref_type, ref_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, clock_timestamp())
       RETURNING ${LEDGER_COLUMNS}`,
      [newId('led'), e.workspaceId, e.amount, e.balanceAfter, e.reason, e.refType, e.refId],
    );
    return toEntry(rows[0]);
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
