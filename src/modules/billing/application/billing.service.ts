import { Injectable } from '@nestjs/common';
import { pageRequest, PLAN_LIMITS, type Page, type Plan } from '../../../core/index.js';
import type { LedgerEntry } from '../domain/credits.js';
import { CreditLedgerRepository } from '../infrastructure/credit-ledger.repository.js';
import { BillingFacade } from './billing.facade.js';

export interface CreditSummary {
  balance: number;
  plan: Plan;
  characterLimit: number;
}

/** What a workspace may read about its own credits. */
@Injectable()
export class BillingService {
  constructor(
    private readonly facade: BillingFacade,
    private readonly ledger: CreditLedgerRepository,
  ) {}

  async summary(workspaceId: string, plan: Plan): Promise<CreditSummary> {
    return { balance: await this.facade.balance(workspaceId), plan, characterLimit: PLAN_LIMITS[plan].characterLimit };
  }

  history(workspaceId: string, page?: number, pageSize?: number): Promise<Page<LedgerEntry>> {
    return this.ledger.list(workspaceId, pageRequest(page, pageSize));
  }
}
