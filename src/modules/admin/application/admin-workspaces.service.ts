import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { pageRequest, type Page, type Plan } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { AuditLog } from '../../audit/index.js';
import { AccountsFacade, type Workspace, type WorkspaceWithOwner } from '../../auth/index.js';
import { BillingFacade, type LedgerEntry } from '../../billing/index.js';

export interface CreditAdjustment {
  workspaceId: string;
  amount: number;
  reason: string;
  adminUserId: string;
}

/** Operator actions on any workspace: search, plan changes and credit adjustments. */
@Injectable()
export class AdminWorkspacesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly accounts: AccountsFacade,
    private readonly billing: BillingFacade,
    private readonly audit: AuditLog,
    private readonly limiter: RateLimiter,
  ) {}

  search(email: string | undefined, page?: number, pageSize?: number): Promise<Page<WorkspaceWithOwner>> {
    return this.accounts.findWorkspacesByOwnerEmail(email ?? '', pageRequest(page, pageSize));
  }

  /** Audited in the target workspace's log: its members see who moved their plan. */
  async setPlan(adminUserId: string, workspaceId: string, plan: Plan): Promise<Workspace> {
    const workspace = await inTransaction(this.ds, async (tx) => {
      const { from } = await this.billing.changePlan(tx, workspaceId, plan);
      await this.audit.record(tx, { workspaceId, actorUserId: adminUserId, action: 'plan.changed', targetType: 'workspace', targetId: workspaceId, details: { from, to: plan } });
      return this.accounts.getWorkspace(workspaceId, tx);
    });
    await this.limiter.bumpAccessStamp(workspaceId);
    return workspace;
  }

  /** A grant (positive) or a debit (negative) that, like any debit, cannot take the balance below zero. */
  adjustCredits(a: CreditAdjustment): Promise<{ workspace: Workspace; entry: LedgerEntry }> {
    return inTransaction(this.ds, async (tx) => {
      const change = { workspaceId: a.workspaceId, amount: Math.abs(a.amount), reason: a.reason, refType: 'admin', refId: a.adminUserId };
      const { entry } = a.amount > 0 ? await this.billing.credit(tx, change) : await this.billing.debit(tx, change);
      await this.audit.record(tx, {
        workspaceId: a.workspaceId, actorUserId: a.adminUserId, action: 'credits.granted', targetType: 'workspace', targetId: a.workspaceId,
        details: { amount: a.amount, reason: a.reason },
      });
      return { workspace: await this.accounts.getWorkspace(a.workspaceId, tx), entry };
    });
  }
}
