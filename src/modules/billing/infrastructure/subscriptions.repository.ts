import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../../../platform/database/index.js';
import type { RemoteSubscription, SubscriptionStatus } from '../application/ports/payment-gateway.js';
import type { PaidPlan } from '../domain/catalogue.js';

/** The service's copy of a workspace's subscription, as last read from the provider. */
export interface LocalSubscription {
  workspaceId: string;
  providerSubscriptionId: string;
  plan: PaidPlan;
  status: SubscriptionStatus;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
  pendingPlan: PaidPlan | null;
  syncedAt: Date;
}

interface SubscriptionRow {
  workspace_id: string;
  provider_subscription_id: string;
  plan: PaidPlan;
  status: SubscriptionStatus;
  current_period_start: Date;
  current_period_end: Date;
  cancel_at_period_end: boolean;
  pending_plan: PaidPlan | null;
  synced_at: Date;
}

const COLUMNS = 'workspace_id, provider_subscription_id, plan, status, current_period_start, current_period_end, cancel_at_period_end, pending_plan, synced_at';

/** `billing_subscriptions`: one row per workspace that ever subscribed. */
@Injectable()
export class SubscriptionsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async get(workspaceId: string, tx?: Tx, lock = false): Promise<LocalSubscription | null> {
    const rows: SubscriptionRow[] = await (tx ?? this.ds.manager).query(
      `SELECT ${COLUMNS} FROM billing_subscriptions WHERE workspace_id = $1${lock ? ' FOR UPDATE' : ''}`,
      [workspaceId],
    );
    return rows[0] ? toLocal(rows[0]) : null;
  }

  /** Stores what the provider says now (its plan must be one of ours). */
  /** `readAt`: when the provider was asked (a later read is never overwritten by an earlier one). */
  async save(tx: Tx, workspaceId: string, s: RemoteSubscription & { plan: PaidPlan }, readAt: Date): Promise<void> {
    await tx.query(
      `INSERT INTO billing_subscriptions (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (workspace_id) DO UPDATE SET provider_subscription_id = EXCLUDED.provider_subscription_id, plan = EXCLUDED.plan,
         status = EXCLUDED.status, current_period_start = EXCLUDED.current_period_start, current_period_end = EXCLUDED.current_period_end,
         cancel_at_period_end = EXCLUDED.cancel_at_period_end, pending_plan = EXCLUDED.pending_plan, synced_at = EXCLUDED.synced_at`,
      [workspaceId, s.id, s.plan, s.status, s.currentPeriodStart, s.currentPeriodEnd, s.cancelAtPeriodEnd, s.pendingPlan, readAt],
    );
  }

  /** The provider has no live subscription for the workspace any more: the local copy says it ended. */
  async markEnded(tx: Tx, workspaceId: string, readAt: Date): Promise<void> {
    await tx.query(`UPDATE billing_subscriptions SET status = 'canceled', synced_at = $2 WHERE workspace_id = $1`, [workspaceId, readAt]);
  }

  /**
   * Workspaces with a customer at the provider after `afterWorkspaceId`, in id order: the
   * reconciliation's walk. Every subscribed workspace has one, and so has one whose first
   * subscription's webhooks were all lost (no local copy yet: the walk must not start from those).
   */
  async page(afterWorkspaceId: string, limit: number): Promise<Array<{ workspaceId: string; customerId: string | null }>> {
    const rows: Array<{ workspace_id: string; billing_customer_id: string | null }> = await this.ds.query(
      `SELECT id AS workspace_id, billing_customer_id FROM workspaces
       WHERE billing_customer_id IS NOT NULL AND id > $1 ORDER BY id LIMIT $2`,
      [afterWorkspaceId, limit],
    );
    return rows.map((r) => ({ workspaceId: r.workspace_id, customerId: r.billing_customer_id }));
  }
}

/** Whether a subscription in this status holds its plan's features (past_due keeps them while the provider retries). */
export function holdsPlan(status: SubscriptionStatus): boolean {
  return status === 'active' || status === 'trialing' || status === 'past_due';
}

function toLocal(r: SubscriptionRow): LocalSubscription {
  return {
    workspaceId: r.workspace_id,
    providerSubscriptionId: r.provider_subscription_id,
    plan: r.plan,
    status: r.status,
    currentPeriodStart: r.current_period_start,
    currentPeriodEnd: r.current_period_end,
    cancelAtPeriodEnd: r.cancel_at_period_end,
    pendingPlan: r.pending_plan,
    syncedAt: r.synced_at,
  };
}
