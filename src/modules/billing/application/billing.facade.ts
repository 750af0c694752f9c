import { Injectable } from '@nestjs/common';
import { AppError } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { assertCreditAmount, insufficientCredits, type CreditChange, type LedgerEntry } from '../domain/credits.js';
import { CreditLedgerRepository } from '../infrastructure/credit-ledger.repository.js';

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
    const balance = await this.ledger.subtractIfCovered(tx, change.workspaceId, change.amount);
    if (balance === null) {
      const current = await this.ledger.balance(change.workspaceId, tx);
      if (current === null) throw AppError.notFound('Workspace');
      throw insufficientCredits(change.amount, current);
    }
    return { balance, entry: await this.record(tx, change, -change.amount, balance) };
  }

  /** Adds credits: grants, refunds, payouts. */
  async credit(tx: Tx, change: CreditChange): Promise<CreditMovement> {
    assertCreditAmount(change.amount);
    const balance = await this.ledger.add(tx, change.workspaceId, change.amount);
    if (balance === null) throw AppError.notFound('Workspace');
    return { balance, entry: await this.record(tx, change, change.amount, balance) };
  }

  async balance(workspaceId: string, tx?: Tx): Promise<number> {
    const balance = await this.ledger.balance(workspaceId, tx);
    if (balance === null) throw AppError.notFound('Workspace');
    return balance;
  }

  private record(tx: Tx, change: CreditChange, amount: number, balanceAfter: number): Promise<LedgerEntry> {
    return this.ledger.append(tx, {
      workspaceId: change.workspaceId,
      amount,
      balanceAfter,
      reason: change.reason,
      refType: change.refType ?? null,
      refId: change.refId ?? null,
    });
  }
}
