import { Injectable } from '@nestjs/common';
import { AppError, type Plan } from '../../../core/index.js';
import type { ComposedStatement, Tx } from '../../../platform/database/index.js';
import { periodEnd } from '../domain/allocation.js';
import { PLAN_ALLOCATIONS } from '../domain/catalogue.js';
import { assertCreditAmount, insufficientCredits, type CreditChange, type LedgerEntry } from '../domain/credits.js';
import { AllocationsRepository } from '../infrastructure/allocations.repository.js';
import { CreditLedgerRepository, isUncovered } from '../infrastructure/credit-ledger.repository.js';
import { PlansRepository } from '../infrastructure/plans.repository.js';
import { CreditAlerts } from './credit-alerts.js';

export interface CreditMovement {
  balance: number;
  entry: LedgerEntry;
}

/**
 * What other contexts use to charge and pay credits, open a new workspace's first allocation and
 * move a plan. Every movement runs inside the caller's transaction, so the work and its charge
 * commit or roll back together. A debit takes this period's allocation first, then purchased credits.
 */
@Injectable()
export class BillingFacade {
  constructor(
    private readonly ledger: CreditLedgerRepository,
    private readonly allocations: AllocationsRepository,
    private readonly plans: PlansRepository,
    private readonly alerts: CreditAlerts,
  ) {}

  /** Takes credits or throws `insufficient_credits` (nothing taken); `not_found` for an unknown workspace. */
  async debit(tx: Tx, change: CreditChange): Promise<CreditMovement> {
    assertCreditAmount(change.amount);
    const moved = await this.ledger.move(tx, this.movement(change, -change.amount), true);
    if (!moved) {
      const current = await this.ledger.balance(change.workspaceId, tx);
      if (current === null) throw AppError.notFound('Workspace');
      throw insufficientCredits(change.amount, current);
    }
    await this.alerts.raise(tx, change.workspaceId, moved.allocation, moved.entry.balanceAfter);
    return { balance: moved.entry.balanceAfter, entry: moved.entry };
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
    let after;
    try {
      after = await this.ledger.runWith(statement, change && this.movement(change, -change.amount));
    } catch (err) {
      if (!change || !isUncovered(err)) throw err;
      throw insufficientCredits(change.amount, await this.balance(change.workspaceId));
    }
    if (change && after) await this.alerts.raiseAfter(change.workspaceId, after.allocation, after.balance);
  }

  /** Adds credits: refunds, payouts, grants by hand. They are purchased credits: they never expire. */
  async credit(tx: Tx, change: CreditChange): Promise<CreditMovement> {
    assertCreditAmount(change.amount);
    const moved = await this.ledger.move(tx, this.movement(change, change.amount), false);
    if (!moved) throw AppError.notFound('Workspace');
    return { balance: moved.entry.balanceAfter, entry: moved.entry };
  }

  async balance(workspaceId: string, tx?: Tx): Promise<number> {
    const balance = await this.ledger.balance(workspaceId, tx);
    if (balance === null) throw AppError.notFound('Workspace');
    return balance;
  }

  /**
   * A new workspace's first Starter allocation (registration, a new organisation), in the
   * transaction that creates it: its periods run monthly from its creation.
   */
  async openFirstAllocation(tx: Tx, workspaceId: string): Promise<void> {
    const current = await this.allocations.get(workspaceId, tx);
    if (!current) throw AppError.notFound('Workspace');
    const key = 'starter:1';
    const credits = PLAN_ALLOCATIONS.starter;
    if (!(await this.allocations.claimGrant(tx, workspaceId, key, 'allocation', credits))) return;
    await this.allocations.openPeriod(tx, workspaceId, { key, credits, resetsAt: periodEnd(current.anchor, 1) });
  }

  /**
   * Moves the workspace's plan in the caller's transaction, answering the plan it left (`not_found`
   * for an unknown workspace). The caller moves the access stamp after commit
   * (`RateLimiter.bumpAccessStamp`), or sessions keep the old plan.
   */
  async changePlan(tx: Tx, workspaceId: string, plan: Plan): Promise<{ from: Plan }> {
    const from = await this.plans.set(tx, workspaceId, plan);
    if (from === null) throw AppError.notFound('Workspace');
    return { from };
  }

  private movement(change: CreditChange, amount: number): Omit<LedgerEntry, 'id' | 'createdAt' | 'balanceAfter'> {
    return { workspaceId: change.workspaceId, amount, reason: change.reason, refType: change.refType ?? null, refId: change.refId ?? null };
  }
}
