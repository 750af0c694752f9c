import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { thresholdsReached, type AllocationState } from '../domain/allocation.js';
import { AllocationsRepository } from '../infrastructure/allocations.repository.js';

/**
 * Low-credit alerts: when a debit leaves the allocation at or below 25 %, 10 % or 0 % of this
 * period's grant, each threshold is recorded once per period and one `credits.low` event (the
 * lowest threshold newly reached) goes to the outbox: mail to the owners, a socket event, a log line.
 */
@Injectable()
export class CreditAlerts {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly allocations: AllocationsRepository,
    private readonly outbox: Outbox,
  ) {}

  /** In the debit's transaction: the alert commits with the debit that caused it. */
  async raise(tx: Tx, workspaceId: string, state: AllocationState, balance: number): Promise<void> {
    const reached = thresholdsReached(state);
    if (reached.length === 0 || state.period === null) return;
    const fresh = await this.allocations.recordAlerts(tx, workspaceId, state.period, reached);
    if (fresh.length === 0) return;
    await this.outbox.record(tx, {
      type: 'credits.low',
      workspaceId,
      payload: {
        threshold: Math.min(...fresh),
        remaining: state.remaining,
        granted: state.granted,
        balance,
        resetsAt: state.resetsAt?.toISOString() ?? null,
      },
    });
  }

  /**
   * After a debit that committed on its own (a paid order's single statement): its own
   * transaction. Only called when a threshold is reached, so most debits cost nothing more; an
   * alert lost to a crash in between is raised by the allocation pass (`sweepMissed`).
   */
  async raiseAfter(workspaceId: string, state: AllocationState, balance: number): Promise<void> {
    if (thresholdsReached(state).length === 0) return;
    await inTransaction(this.ds, (tx) => this.raise(tx, workspaceId, state, balance));
  }

  /** Raises the alerts a crash lost (at most `limit`); answers how many workspaces it looked at. */
  async sweepMissed(limit: number): Promise<number> {
    const missing = await this.allocations.missingAlerts(limit);
    for (const m of missing) await this.raiseAfter(m.workspaceId, m, m.balance);
    return missing.length;
  }
}
