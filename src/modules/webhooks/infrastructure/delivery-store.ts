import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { changedRows, inTransaction, type Tx } from '../../../platform/database/index.js';
import type { EndpointRow } from './webhooks.repository.js';

/** A delivery a worker holds a lease on, with what sending it needs. `leasedUntil` (whole ms) names the claim. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  workspaceId: string;
  eventId: string;
  eventType: string;
  body: unknown;
  /** Counting this one. */
  attempts: number;
  leasedUntil: Date;
  url: string;
  endpointEnabled: boolean;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

interface ClaimRow {
  id: string;
  endpoint_id: string;
  workspace_id: string;
  event_id: string;
  event_type: string;
  body: unknown;
  attempts: number;
  leased_until: Date;
  url: string;
  enabled: boolean;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

/** One attempt as recorded. */
export interface AttemptRecord {
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  responseExcerpt: string | null;
  error: string | null;
}

/** What to write on the delivery after an attempt. */
export type DeliveryOutcome =
  | { kind: 'delivered' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'failed' };

const DUE = `((status = 'pending' AND next_attempt_at <= now()) OR (status = 'delivering' AND leased_until <= now()))`;
/** The attempt row of a delivery, from the placeholders given; not when the delivery is gone meanwhile (its endpoint deleted). */
const RECORD_ATTEMPT = (delivery: string, attempt: string, startedAt: string, durationMs: string, status: string, excerpt: string, error: string) =>
  `INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, response_excerpt, error)
   SELECT ${delivery}::text, ${attempt}::int, ${startedAt}::timestamptz, ${durationMs}::int, ${status}::int, ${excerpt}::text, ${error}::text
    WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = ${delivery}) ON CONFLICT DO NOTHING`;

/** The rows of the per-endpoint claim index (webhook_deliveries_endpoint_due_idx): not settled yet. */
const OPEN = `status IN ('pending', 'delivering')`;

/**
 * The delivery loop's side of the webhook tables. A claim is a lease (`leased_until`, truncated to
 * the millisecond so the Date that comes back names it exactly): every later write names the claim,
 * so a worker whose lease lapsed and was taken over changes nothing.
 */
@Injectable()
export class DeliveryStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Claims up to `limit` due deliveries (pending and due, or delivering with a lapsed lease), oldest
   * first, none of the endpoints in `busy`, skipping rows another worker is claiming (`FOR UPDATE
   * SKIP LOCKED`). An endpoint gets at most `perEndpoint` less the live leases it has (any worker's),
   * so the bound holds across workers (two claims at the same instant may briefly pass it). The
   * endpoints with open deliveries are found by skipping through the per-endpoint index (a step per
   * endpoint), and each contributes its oldest due rows read in index order: a claim reads what it
   * may take, however long a backlog (due or scheduled later), and one endpoint's backlog never
   * pushes another's deliveries back.
   */
  async claim(limit: number, leaseMs: number, perEndpoint: number, busy: readonly string[]): Promise<ClaimedDelivery[]> {
    // The statement is a SELECT over the claiming UPDATE: its answer is the rows themselves.
    const rows: ClaimRow[] = await this.ds.query(
      `WITH RECURSIVE with_work AS (
         (SELECT endpoint_id FROM webhook_deliveries WHERE ${OPEN} ORDER BY endpoint_id LIMIT 1)
         UNION ALL
         SELECT (SELECT n.endpoint_id FROM webhook_deliveries n WHERE ${OPEN} AND n.endpoint_id > w.endpoint_id ORDER BY n.endpoint_id LIMIT 1)
           FROM with_work w WHERE w.endpoint_id IS NOT NULL
       ),
       candidates AS (
         SELECT c.id FROM with_work w
         CROSS JOIN LATERAL (
           SELECT id, next_attempt_at FROM (
             (SELECT id, next_attempt_at FROM webhook_deliveries x
               WHERE x.endpoint_id = w.endpoint_id AND x.status = 'pending' AND x.next_attempt_at <= now()
               ORDER BY x.next_attempt_at, x.id LIMIT $3)
             UNION ALL
             (SELECT id, next_attempt_at FROM webhook_deliveries x
               WHERE x.endpoint_id = w.endpoint_id AND x.status = 'delivering' AND x.leased_until <= now() LIMIT $3)
           ) due_here
           ORDER BY next_attempt_at, id
           LIMIT greatest($3 - (SELECT count(*) FROM webhook_deliveries l
                                 WHERE l.endpoint_id = w.endpoint_id AND l.status = 'delivering' AND l.leased_until > now()), 0)) c
          WHERE w.endpoint_id IS NOT NULL AND NOT (w.endpoint_id = ANY($4::text[]))
       ),
       claimed AS (
         UPDATE webhook_deliveries d
            SET status = 'delivering', attempts = d.attempts + 1,
                leased_until = date_trunc('milliseconds', now() + $2 * interval '1 millisecond')
           FROM (SELECT id FROM webhook_deliveries
                  WHERE id IN (SELECT id FROM candidates) AND ${DUE}
                  ORDER BY next_attempt_at, id LIMIT $1
                  FOR UPDATE SKIP LOCKED) due
          WHERE d.id = due.id
          RETURNING d.id, d.endpoint_id, d.workspace_id, d.event_id, d.event_type, d.body, d.attempts, d.leased_until)
       SELECT c.*, e.url, e.enabled, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at
         FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id`,
      [limit, leaseMs, perEndpoint, [...busy]],
    );
    return rows.map((r) => ({
      id: r.id,
      endpointId: r.endpoint_id,
      workspaceId: r.workspace_id,
      eventId: r.event_id,
      eventType: r.event_type,
      body: r.body,
      attempts: r.attempts,
      leasedUntil: r.leased_until,
      url: r.url,
      endpointEnabled: r.enabled,
      secretSealed: r.secret_sealed,
      previousSecretSealed: r.previous_secret_sealed,
      previousSecretExpiresAt: r.previous_secret_expires_at,
    }));
  }

  /** Gives a claim back untried (a stop, or more claimed than the endpoint's slots): due again, the attempt not counted. */
  async release(d: ClaimedDelivery): Promise<void> {
    await this.ds.query(
      `UPDATE webhook_deliveries SET status = 'pending', leased_until = NULL, attempts = greatest(attempts - 1, 0)
        WHERE id = $1 AND status = 'delivering' AND leased_until = $2`,
      [d.id, d.leasedUntil],
    );
  }

  /** Fails a claimed delivery without an attempt (its endpoint was disabled meanwhile). */
  async abandon(d: ClaimedDelivery, reason: string): Promise<void> {
    await this.ds.query(
      `UPDATE webhook_deliveries SET status = 'failed', leased_until = NULL, attempts = greatest(attempts - 1, 0), last_error = $3
        WHERE id = $1 AND status = 'delivering' AND leased_until = $2`,
      [d.id, d.leasedUntil, reason],
    );
  }

  /**
   * Records a delivered attempt in one statement (the common case: no transaction, one round trip):
   * the delivery delivered if the claim still holds, the attempt row whatever it found (it
   * happened), and the endpoint's failing streak ended. Answers false when the claim was lost.
   */
  async delivered(d: ClaimedDelivery, attempt: AttemptRecord): Promise<boolean> {
    const rows: Array<{ kept: number }> = await this.ds.query(
      `WITH kept AS (
         UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), leased_until = NULL, last_status = $3, last_error = NULL
          WHERE id = $1 AND status = 'delivering' AND leased_until = $2 RETURNING endpoint_id),
       attempt AS (
         ${RECORD_ATTEMPT('$1', '$4', '$5', '$6', '$3', '$7', 'NULL')}),
       standing AS (
         UPDATE webhook_endpoints SET failing_since = NULL WHERE id IN (SELECT endpoint_id FROM kept) AND failing_since IS NOT NULL)
       SELECT count(*)::int AS kept FROM kept`,
      [d.id, d.leasedUntil, attempt.statusCode, d.attempts, attempt.startedAt, attempt.durationMs, attempt.responseExcerpt],
    );
    return rows[0].kept === 1;
  }

  /**
   * Records an attempt and its outcome in one transaction (the attempt row even when the claim was
   * lost: it happened). `work` runs in the same transaction once the outcome is kept (endpoint
   * standing, audit). Answers false, running nothing else, when the claim was lost meanwhile.
   */
  async finish(d: ClaimedDelivery, attempt: AttemptRecord, outcome: DeliveryOutcome, work: (tx: Tx) => Promise<void>): Promise<boolean> {
    return inTransaction(this.ds, async (tx) => {
      await tx.query(
        RECORD_ATTEMPT('$1', '$2', '$3', '$4', '$5', '$6', '$7'),
        [d.id, d.attempts, attempt.startedAt, attempt.durationMs, attempt.statusCode, attempt.responseExcerpt, attempt.error],
      );
      const set =
        outcome.kind === 'delivered'
          ? `status = 'delivered', delivered_at = now()`
          : outcome.kind === 'retry'
            ? `status = 'pending', next_attempt_at = now() + ${Math.round(outcome.delayMs)} * interval '1 millisecond'`
            : `status = 'failed'`;
      const kept = await changedRows(
        tx,
        `UPDATE webhook_deliveries SET ${set}, leased_until = NULL, last_status = $3, last_error = $4
          WHERE id = $1 AND status = 'delivering' AND leased_until = $2 RETURNING id`,
        [d.id, d.leasedUntil, attempt.statusCode, attempt.error],
      );
      if (kept.length === 0) return false;
      await work(tx);
      return true;
    });
  }

  /** Starts (or continues) the endpoint's failing streak; answers when it began, null when the endpoint is gone or off. */
  async endpointFailed(tx: Tx, endpointId: string, at: Date): Promise<Date | null> {
    const rows = await changedRows<{ failing_since: Date }>(
      tx,
      'UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $2) WHERE id = $1 AND enabled RETURNING failing_since',
      [endpointId, at],
    );
    return rows[0]?.failing_since ?? null;
  }

  /** Disables an enabled endpoint and fails its pending deliveries; null when it was already off. */
  async disable(tx: Tx, endpointId: string, reason: 'gone' | 'failing'): Promise<EndpointRow | null> {
    const rows = await changedRows<EndpointRow>(
      tx,
      `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2, disabled_at = now(), updated_at = now()
        WHERE id = $1 AND enabled RETURNING *`,
      [endpointId, reason],
    );
    if (rows.length === 0) return null;
    await tx.query(
      `UPDATE webhook_deliveries SET status = 'failed', last_error = $2 WHERE endpoint_id = $1 AND status = 'pending'`,
      [endpointId, `endpoint disabled (${reason})`],
    );
    return rows[0];
  }
}
