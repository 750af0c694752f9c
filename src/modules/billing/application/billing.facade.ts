import { Injectable } from '@nestjs/common';
import { AppError } from '../../../core/index.js';
import type { ComposedStatement, Tx } from '../../../platform/database/index.js';
import { assertCreditAmount, insufficientCredits, type CreditChange, type LedgerEntry } from '../domain/credits.js';
import { CreditLedgerRepository, isUncovered } from '../infrastructure/credit-ledger.repository.js';

export interface CreditMovement {
  balance: number;
  entry: LedgerEntry;
}

/**
 * What other contexts use to charge and pay credits. Every movement runs inside the caller's
 * transaction, so the work and its charge commit or roll back together.
 */
@Injectable()
export class BillingFacade {
  constructor(private readonly ledger: CreditLedgerRepository) {}

  /** Takes credits or throws `insufficient_credits` (nothing taken); `not_found` for an unknown workspace. */
  async debit(tx: Tx, change: CreditChange): Promise<CreditMovement> {
    assertCreditAmount(change.amount);
    const entry = await this.ledger.move(tx, this.movement(change, -change.amount), true);
    if (!entry) {
      const current = await this.ledger.balance(change.workspaceId, tx);
      if (current === null) throw AppError.notFound('Workspace');
      throw insufficientCredits(change.amount, current);
    }
    return { balance: entry.balanceAfter, entry };
  }

  /**
   * The paid-order operation: runs the caller's writes (`statement`) with the debit of `change`
   * added, as one autocommit statement, so the work and its charge commit together and the
   * workspace row is locked only inside the database, never across a round trip to this process.
   * An uncovered debit fails the whole statement: `insufficient_credits` with the balance as it is
   * now, nothing written. A free order (`change` null) runs the writes alone.
   */
  async payFor(statement: ComposedStatement, change: CreditChange | null): Promise<void> {
    if (change) assertCreditAmount(change.amount);
    try {
      await this.ledger.runWith(statement, change && this.movement(change, -change.amount));
    } catch (err) {
      if (!change || !isUncovered(err)) throw err;
      throw insufficientCredits(change.amount, await this.balance(change.workspaceId));
    }
  }

  /** Adds credits: grants, refunds, payouts. */
  async credit(tx: Tx, change: CreditChange): Promise<CreditMovement> {
    assertCreditAmount(change.amount);
    const entry = await this.ledger.move(tx, this.movement(change, change.amount), false);
    if (!entry) throw AppError.notFound('Workspace');
    return { balance: entry.balanceAfter, entry };
  }

  async balance(workspaceId: string, tx?: Tx): Promise<number> {
    const balance = await this.ledger.balance(workspaceId, tx);
    if (balance === null) throw AppError.notFound('Workspace');
    return balance;
  }

  private movement(change: CreditChange, amount: number): Omit<LedgerEntry, 'id' | 'createdAt' | 'balanceAfter'> {
    return { workspaceId: change.workspaceId, amount, reason: change.reason, refType: change.refType ?? null, refId: change.refId ?? null };
  }
}
