import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import type { ProcessRole } from '../../../core/index.js';
import { ProcessLifecycle } from '../../../platform/lifecycle/index.js';
import { consumesQueues, PeriodicPass, QUEUE_ROLE } from '../../../platform/queue/index.js';
import { SandboxGateway } from '../infrastructure/sandbox-gateway.js';
import { BillingEventIntake } from './billing-event-intake.js';
import { PaymentGateway } from './ports/payment-gateway.js';

/**
 * The offline sandbox's clock: what Stripe does when a period ends. On the processes that consume
 * queues, when payments go to the sandbox, a pass every `ALLOCATION_PASS_MS` renews (or, when set
 * to, cancels) every subscription whose period ended and gives the events to the intake, as
 * Stripe's webhooks would. With Stripe it does nothing.
 */
@Injectable()
export class SandboxRenewals implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Billing');
  private readonly pass = new PeriodicPass((now) => this.renew(now));

  constructor(
    @Inject(QUEUE_ROLE) private readonly role: ProcessRole,
    private readonly config: AppConfig,
    private readonly gateway: PaymentGateway,
    private readonly intake: BillingEventIntake,
    private readonly lifecycle: ProcessLifecycle,
  ) {}

  onApplicationBootstrap(): void {
    if (this.sandbox() && consumesQueues(this.role, this.config)) this.pass.start(this.config.billing.allocationPassMs, this.lifecycle);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.pass.stop();
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
      this.logger.warn({ msg: 'sandbox renewal pass failed', err: String(err) });
    }
    return delivered;
  }

  private sandbox(): SandboxGateway | null {
    return this.gateway instanceof SandboxGateway ? this.gateway : null;
  }
}
