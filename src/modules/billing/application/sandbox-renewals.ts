import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { PeriodicPass, PeriodicPasses } from '../../../platform/queue/index.js';
import { SandboxGateway } from '../infrastructure/sandbox-gateway.js';
import { BillingEventIntake } from './billing-event-intake.js';
import { PaymentGateway } from './ports/payment-gateway.js';
import { outages } from '../../../platform/health/index.js';

/**
 * The offline sandbox's clock: what Stripe does when a period ends. On the processes that consume
 * queues, when payments go to the sandbox, a pass every `ALLOCATION_PASS_MS` renews (or, when set
 * to, cancels) every subscription whose period ended and gives the events to the intake, as
 * Stripe's webhooks would. With Stripe it does nothing.
 */
@Injectable()
export class SandboxRenewals {
  private readonly logger = new Logger('Billing');
  private readonly pass: PeriodicPass;

  constructor(
    private readonly config: AppConfig,
    private readonly gateway: PaymentGateway,
    private readonly intake: BillingEventIntake,
    passes: PeriodicPasses,
  ) {
    this.pass = passes.register({ name: 'billing.sandbox-renewals', everyMs: config.billing.allocationPassMs, pass: (now) => this.renew(now) });
  }

  /** One pass (a pass running is joined); answers the events given to the intake. */
  tick(now = new Date()): Promise<number> {
    return this.pass.run(now);
  }

  private async renew(now: Date): Promise<number> {
    const gateway = this.sandbox();
    if (!gateway) return 0;
    let delivered = 0;
    try {
      const events = await gateway.renewDue(now);
      for (const event of events) {
        await this.intake.accept(event);
        delivered++;
      }
      if (events.length > 0) this.logger.log({ msg: 'sandbox subscriptions renewed', events: events.length });
    } catch (err) {
      if (!(await outages.covers(err))) this.logger.warn({ msg: 'sandbox renewal pass failed', err: String(err) });
    }
    return delivered;
  }

  private sandbox(): SandboxGateway | null {
    return this.gateway instanceof SandboxGateway ? this.gateway : null;
  }
}
