import { Module } from '@nestjs/common';
import { BillingController } from './api/billing.controller.js';
import { BillingPublicController } from './api/billing-public.controller.js';
import { BillingFacade } from './application/billing.facade.js';
import { BillingService } from './application/billing.service.js';
import { CreditLedgerRepository } from './infrastructure/credit-ledger.repository.js';
import { BillingDataContributor } from './infrastructure/billing-data.contributor.js';

/** Credits: balances, the append-only ledger, and the facade every paid action debits through. */
@Module({
  controllers: [BillingController, BillingPublicController],
  providers: [BillingDataContributor, CreditLedgerRepository, BillingFacade, BillingService],
  exports: [BillingFacade],
})
export class BillingModule {}
