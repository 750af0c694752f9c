import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Plan } from '../../../core/index.js';
import { changedRows, type Tx } from '../../../platform/database/index.js';

/** A workspace's plan and its payment-provider customer: billing's columns of the workspace. */
@Injectable()
export class PlansRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Sets the plan; answers the plan it had, null for an unknown workspace. */
  async set(tx: Tx, workspaceId: string, plan: Plan): Promise<Plan | null> {
    const rows = await changedRows<{ from_plan: Plan }>(
      tx,
      `WITH old AS (SELECT id, plan FROM workspaces WHERE id = $1 FOR UPDATE)
       UPDATE workspaces w SET plan = $2, updated_at = now() FROM old WHERE w.id = old.id RETURNING old.plan AS from_plan`,
      [workspaceId, plan],
    );
    return rows[0]?.from_plan ?? null;
  }

  /** The plan, with the workspace row locked for the rest of `tx` (billing changes of one workspace queue here). */
  async lockPlan(workspaceId: string, tx: Tx): Promise<Plan | null> {
    const rows: Array<{ plan: Plan }> = await tx.query('SELECT plan FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
    return rows[0]?.plan ?? null;
  }

  async currentPlan(workspaceId: string): Promise<Plan | null> {
    const rows: Array<{ plan: Plan }> = await this.ds.query('SELECT plan FROM workspaces WHERE id = $1', [workspaceId]);
    return rows[0]?.plan ?? null;
  }

  async workspaceName(workspaceId: string, tx: Tx = this.ds.manager): Promise<string | null> {
    const rows: Array<{ name: string }> = await tx.query('SELECT name FROM workspaces WHERE id = $1', [workspaceId]);
    return rows[0]?.name ?? null;
  }

  async customerId(workspaceId: string, tx: Tx = this.ds.manager): Promise<string | null> {
    const rows: Array<{ billing_customer_id: string | null }> = await tx.query('SELECT billing_customer_id FROM workspaces WHERE id = $1', [workspaceId]);
    return rows[0]?.billing_customer_id ?? null;
  }

  /** Records the workspace's customer unless it has one; answers the one it keeps. */
  async setCustomerId(tx: Tx, workspaceId: string, customerId: string): Promise<string> {
    const rows = await changedRows<{ billing_customer_id: string }>(
      tx,
      `UPDATE workspaces SET billing_customer_id = COALESCE(billing_customer_id, $2) WHERE id = $1 RETURNING billing_customer_id`,
      [workspaceId, customerId],
    );
    return rows[0].billing_customer_id;
  }

  /** The workspace a provider customer belongs to. */
  async workspaceOfCustomer(customerId: string, tx: Tx = this.ds.manager): Promise<string | null> {
    const rows: Array<{ id: string }> = await tx.query('SELECT id FROM workspaces WHERE billing_customer_id = $1', [customerId]);
    return rows[0]?.id ?? null;
  }
}
