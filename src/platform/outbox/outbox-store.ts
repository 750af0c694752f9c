import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { OutboxEventType } from '../../core/index.js';
import { changedRows } from '../database/index.js';

/** An event a dispatcher holds a lease on. `claimedUntil` (whole milliseconds) identifies the claim. */
export interface ClaimedEvent {
  id: string;
  type: OutboxEventType;
  workspaceId: string | null;
  payload: unknown;
  secretSealed: string | null;
  occurredAt: Date;
  /** Counting the claim that answered it. */
  attempts: number;
  deliveredTo: string[];
  claimedUntil: Date;
}

interface EventRow {
  id: string;
  type: OutboxEventType;
  workspace_id: string | null;
  payload: unknown;
  secret_sealed: string | null;
  occurred_at: Date;
  attempts: number;
  delivered_to: string[];
  claimed_until: Date;
}

/** How one attempt ended: `delivered` names the subscribers now done with it. */
export type Outcome =
  | { kind: 'done'; delivered: string[]; error: string | null }
  | { kind: 'retry'; delivered: string[]; delayMs: number; error: string }
  | { kind: 'give_up'; delivered: string[]; error: string };

/**
 * The dispatcher's side of `outbox_events`. A claim is a lease (`claimed_until`, truncated to the
 * millisecond so the JavaScript Date that comes back names it exactly): every later write names
 * the claim, so a dispatcher whose lease lapsed (and was taken over) changes nothing.
 */
@Injectable()
export class OutboxStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Claims up to `limit` due events, oldest first, skipping those another dispatcher is claiming. */
  async claim(limit: number, leaseMs: number): Promise<ClaimedEvent[]> {
    const rows = await changedRows<EventRow>(
      this.ds.manager,
      `UPDATE outbox_events o
          SET claimed_until = date_trunc('milliseconds', now() + $2 * interval '1 millisecond'), attempts = o.attempts + 1
         FROM (SELECT id FROM outbox_events
                WHERE done_at IS NULL AND available_at <= now() AND (claimed_until IS NULL OR claimed_until <= now())
                ORDER BY available_at, id LIMIT $1
                FOR UPDATE SKIP LOCKED) due
        WHERE o.id = due.id
        RETURNING o.id, o.type, o.workspace_id, o.payload, o.secret_sealed, o.occurred_at, o.attempts, o.delivered_to, o.claimed_until`,
      [limit, leaseMs],
    );
    return rows
      .map((r) => ({
        id: r.id,
        type: r.type,
        workspaceId: r.workspace_id,
        payload: r.payload,
        secretSealed: r.secret_sealed,
        occurredAt: r.occurred_at,
        attempts: r.attempts,
        deliveredTo: r.delivered_to ?? [],
        claimedUntil: r.claimed_until,
      }))
      .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || a.id.localeCompare(b.id));
  }

  /** Records the attempt's outcome under the claim; false when the claim was lost meanwhile. */
  async finish(event: ClaimedEvent, outcome: Outcome): Promise<boolean> {
    const base = [event.id, event.claimedUntil, outcome.delivered, outcome.error];
    const sql =
      outcome.kind === 'retry'
        ? `UPDATE outbox_events SET delivered_to = delivered_to || $3::text[], last_error = $4, claimed_until = NULL,
             available_at = now() + $5 * interval '1 millisecond'
           WHERE id = $1 AND claimed_until = $2 RETURNING id`
        : `UPDATE outbox_events SET delivered_to = delivered_to || $3::text[], last_error = $4, claimed_until = NULL,
             done_at = now(), secret_sealed = NULL
           WHERE id = $1 AND claimed_until = $2 RETURNING id`;
    const params = outcome.kind === 'retry' ? [...base, outcome.delayMs] : base;
    return (await changedRows(this.ds.manager, sql, params)).length === 1;
  }

  /** Gives a claim back untried (a stop): due again at once, the claim's attempt not counted. */
  async release(event: ClaimedEvent): Promise<void> {
    await this.ds.query(
      `UPDATE outbox_events SET claimed_until = NULL, attempts = greatest(attempts - 1, 0) WHERE id = $1 AND claimed_until = $2`,
      [event.id, event.claimedUntil],
    );
  }

}
