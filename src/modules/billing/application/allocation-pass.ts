import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { PeriodicPass, PeriodicPasses } from '../../../platform/queue/index.js';
import { PLAN_ALLOCATIONS } from '../domain/catalogue.js';
import { AllocationsRepository } from '../infrastructure/allocations.repository.js';
import { CreditAlerts } from './credit-alerts.js';
import { outages } from '../../../platform/health/index.js';

/** Workspaces one statement opens a period for. */
const BATCH = 500;
/** Lost alerts raised again per pass, at most. */
const ALERT_SWEEP = 200;

/**
 * The periodic pass on the workers that opens the monthly Starter allocation of every workspace
 * without a live subscription whose period ended (on the anniversary of its creation): what was
 * left expires, 50 credits come in. Batches are claimed with SKIP LOCKED and each period is granted
 * once by its key, so several workers share the work and never grant twice. Subscribed workspaces
 * get theirs from their paid invoices (`BillingSync`). The pass also raises low-credit alerts a
 * crash lost.
 */
@Injectable()
export class AllocationPass {
  private readonly logger = new Logger('Billing');
  private readonly pass: PeriodicPass;

  constructor(
    private readonly config: AppConfig,
    private readonly allocations: AllocationsRepository,
    private readonly alerts: CreditAlerts,
    passes: PeriodicPasses,
  ) {
    this.pass = passes.register({ name: 'billing.allocations', everyMs: config.billing.allocationPassMs, pass: (now) => this.sweep(now) });
  }

  /** One pass (a pass running is joined); answers the periods granted. */
  tick(now = new Date()): Promise<number> {
    return this.pass.run(now);
  }

  private async sweep(now: Date): Promise<number> {
    const started = Date.now();
    let granted = 0;
    let due = 0;
    try {
      for (;;) {
        const batch = await this.allocations.openDueStarterPeriods(now, PLAN_ALLOCATIONS.starter, BATCH);
        granted += batch.granted;
        due += batch.due;
        if (batch.due < BATCH) break;
      }
      await this.alerts.sweepMissed(ALERT_SWEEP);
    } catch (err) {
      if (!(await outages.covers(err))) this.logger.warn({ msg: 'allocation pass stopped early; the next one goes on', granted, err: err instanceof Error ? err.message : String(err) });
    }
    if (due > 0) this.logger.log({ msg: 'monthly allocations opened', due, granted, ms: Date.now() - started });
    return granted;
  }
}
