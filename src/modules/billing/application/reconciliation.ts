import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { Metrics } from '../../../platform/metrics/index.js';
import { PeriodicPass, PeriodicPasses } from '../../../platform/queue/index.js';
import { SubscriptionsRepository } from '../infrastructure/subscriptions.repository.js';
import { BillingSync } from './billing-sync.js';
import { outages } from '../../../platform/health/index.js';

const PAGE = 100;

/** What one reconciliation found. */
export interface ReconciliationReport {
  checked: number;
  drifted: number;
  failed: number;
}

/**
 * Compares every workspace with a customer at the provider (subscribed, or whose first
 * subscription's webhooks never arrived) with the provider (daily on the workers, and on demand for
 * administrators) and mends what lost webhooks left behind: the plan, the subscription's copy, the
 * grants of paid invoices. Drift found is logged per workspace and counted in the metrics.
 */
@Injectable()
export class BillingReconciliation {
  private readonly logger = new Logger('Billing');
  private readonly pass: PeriodicPass;

  constructor(
    private readonly config: AppConfig,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly sync: BillingSync,
    private readonly metrics: Metrics,
    passes: PeriodicPasses,
  ) {
    this.pass = passes.register({ name: 'billing.reconciliation', everyMs: config.billing.reconcileEveryMs, pass: async () => (await this.reconcile()).drifted });
  }

  async reconcile(): Promise<ReconciliationReport> {
    const report: ReconciliationReport = { checked: 0, drifted: 0, failed: 0 };
    let after = '';
    for (;;) {
      const page = await this.subscriptions.page(after, PAGE);
      for (const { workspaceId, customerId } of page) {
        if (!customerId) continue;
        report.checked += 1;
        try {
          const outcome = await this.sync.syncWorkspace(workspaceId, customerId);
          if (outcome.planFrom !== outcome.planTo || outcome.grants > 0) {
            report.drifted += 1;
            this.metrics.billingDriftMended();
            this.logger.warn({ msg: 'billing drift mended', workspace_id: workspaceId, plan_from: outcome.planFrom, plan_to: outcome.planTo, grants: outcome.grants });
          }
        } catch (err) {
          if (await outages.covers(err)) throw err; // the pass ends; the outage log says it once
          report.failed += 1;
          this.logger.warn({ msg: 'billing reconciliation of a workspace failed', workspace_id: workspaceId, err: err instanceof Error ? err.message : String(err) });
        }
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1].workspaceId;
    }
    this.logger.log({ msg: 'billing reconciled', ...report });
    return report;
  }
}
