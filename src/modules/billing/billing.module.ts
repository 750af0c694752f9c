import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../config/index.js';
import { AdminBillingController } from './api/admin-billing.controller.js';
import { BillingPublicController } from './api/billing-public.controller.js';
import { BillingSandboxController } from './api/billing-sandbox.controller.js';
import { BillingController } from './api/billing.controller.js';
import { CreditEventBodies } from './api/credit-event-bodies.js';
import { StripeWebhooksController } from './api/stripe-webhooks.controller.js';
import { AllocationPass } from './application/allocation-pass.js';
import { BillingEventIntake } from './application/billing-event-intake.js';
import { BillingSync } from './application/billing-sync.js';
import { BillingFacade } from './application/billing.facade.js';
import { BillingService } from './application/billing.service.js';
import { CreditAlertNotifier } from './application/credit-alert-notifier.js';
import { CreditAlerts } from './application/credit-alerts.js';
import { PaymentGateway } from './application/ports/payment-gateway.js';
import { BillingReconciliation } from './application/reconciliation.js';
import { SandboxRenewals } from './application/sandbox-renewals.js';
import { SubscriptionService } from './application/subscription.service.js';
import { AllocationsRepository } from './infrastructure/allocations.repository.js';
import { BillingDataContributor } from './infrastructure/billing-data.contributor.js';
import { CreditLedgerRepository } from './infrastructure/credit-ledger.repository.js';
import { PlansRepository } from './infrastructure/plans.repository.js';
import { SandboxGateway } from './infrastructure/sandbox-gateway.js';
import { StripeGateway } from './infrastructure/stripe-gateway.js';
import { SubscriptionsRepository } from './infrastructure/subscriptions.repository.js';

/**
 * Credits and billing (docs/billing.md): balances in two buckets and the append-only ledger, the
 * facade every paid action debits through, plans and packs sold through Stripe (or the offline
 * sandbox without `STRIPE_SECRET_KEY`), monthly allocations, low-credit alerts, reconciliation.
 */
@Module({
  controllers: [BillingController, BillingPublicController, StripeWebhooksController, BillingSandboxController, AdminBillingController],
  providers: [
    BillingDataContributor,
    CreditLedgerRepository,
    AllocationsRepository,
    PlansRepository,
    SubscriptionsRepository,
    CreditAlerts,
    CreditAlertNotifier,
    BillingFacade,
    BillingService,
    BillingEventIntake,
    BillingSync,
    SubscriptionService,
    AllocationPass,
    BillingReconciliation,
    SandboxRenewals,
    CreditEventBodies,
    {
      provide: PaymentGateway,
      inject: [AppConfig, getDataSourceToken(), BillingEventIntake],
      useFactory: (config: AppConfig, ds: DataSource, intake: BillingEventIntake): PaymentGateway => {
        if (config.billing.stripe) return new StripeGateway(config.billing.stripe, { appUrl: config.appUrl });
        const sandbox = new SandboxGateway(ds, { publicUrl: config.publicUrl });
        sandbox.onEvents = async (events) => {
          for (const event of events) await intake.accept(event);
        };
        return sandbox;
      },
    },
  ],
  exports: [BillingFacade],
})
export class BillingModule {}
