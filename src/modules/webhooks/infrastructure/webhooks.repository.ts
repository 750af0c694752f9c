import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { newId, type Page, type PageRequest, offsetOf } from '../../../core/index.js';
import { changedRows, insertedRows, jsonParam, type Tx } from '../../../platform/database/index.js';
import type { AttemptView, DeliveryFilter, DeliveryView, EndpointView } from '../application/webhook.views.js';
import type { DeliveryStatus, DisabledReason } from '../domain/webhook-rules.js';

export interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  disabled_at: Date | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
  attempt_log: Array<{ attempt: number; started_at: string; duration_ms: number; status_code: number | null; response_excerpt: string | null; error: string | null }> | null;
}

export function endpointView(row: EndpointRow, now = new Date()): EndpointView {
  const overlap = row.previous_secret_sealed !== null && row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    url: row.url,
    description: row.description,
    eventTypes: [...row.event_types],
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    secretRotationEndsAt: overlap ? row.previous_secret_expires_at : null,
  };
}

function deliveryView(row: DeliveryRow): DeliveryView {
  const attempts: AttemptView[] = (row.attempt_log ?? []).map((a) => ({
    attempt: a.attempt,
    startedAt: new Date(a.started_at),
    durationMs: a.duration_ms,
    statusCode: a.status_code,
    responseExcerpt: a.response_excerpt,
    error: a.error,
  }));
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    lastStatus: row.last_status,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    attemptLog: attempts.sort((a, b) => a.attempt - b.attempt),
  };
}

/** The attempts of a delivery, as JSON (the last 10), beside its row. */
const DELIVERY_COLUMNS = `d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempts, d.next_attempt_at, d.last_status, d.last_error,
  d.created_at, d.delivered_at,
  (SELECT json_agg(json_build_object('attempt', a.attempt, 'started_at', a.started_at, 'duration_ms', a.duration_ms,
      'status_code', a.status_code, 'response_excerpt', a.response_excerpt, 'error', a.error))
     FROM (SELECT * FROM webhook_attempts WHERE delivery_id = d.id ORDER BY attempt DESC LIMIT 10) a) AS attempt_log`;

/** The management side of the webhook tables (the delivery loop has its own store). */
@Injectable()
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Serialises endpoint creation per workspace (the limit is counted under it). */
  async lockWorkspace(tx: Tx, workspaceId: string): Promise<void> {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints:' || $1))`, [workspaceId]);
  }

  async count(tx: Tx, workspaceId: string): Promise<number> {
    const rows: Array<{ n: number }> = await tx.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1', [workspaceId]);
    return rows[0].n;
  }

  async insert(tx: Tx, row: Pick<EndpointRow, 'id' | 'workspace_id' | 'url' | 'description' | 'event_types' | 'secret_sealed'>): Promise<EndpointRow> {
    const rows: EndpointRow[] = await tx.query(
      `INSERT INTO webhook_endpoints (id, workspace_id, url, description, event_types, secret_sealed)
       VALUES ($1, $2, $3, $4, $5::text[], $6) RETURNING *`,
      [row.id, row.workspace_id, row.url, row.description, row.event_types, row.secret_sealed],
    );
    return rows[0];
  }

  async list(workspaceId: string): Promise<EndpointRow[]> {
    return this.ds.query('SELECT * FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC', [workspaceId]);
  }

  async find(workspaceId: string, id: string, tx?: Tx): Promise<EndpointRow | null> {
    const rows: EndpointRow[] = await (tx ?? this.ds.manager).query('SELECT * FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
    return rows[0] ?? null;
  }

  /** Applies the given columns; re-enabling clears the disabled state and the failing streak. */
  async update(
    tx: Tx,
    workspaceId: string,
    id: string,
    patch: { url?: string; description?: string; eventTypes?: string[]; enabled?: boolean },
  ): Promise<EndpointRow | null> {
    const rows = await changedRows<EndpointRow>(
      tx,
      `UPDATE webhook_endpoints SET
         url = coalesce($3, url),
         description = coalesce($4, description),
         event_types = coalesce($5::text[], event_types),
         enabled = coalesce($6, enabled),
         disabled_reason = CASE WHEN $6 IS NULL THEN disabled_reason WHEN $6 THEN NULL WHEN enabled THEN 'manual' ELSE disabled_reason END,
         disabled_at = CASE WHEN $6 IS NULL THEN disabled_at WHEN $6 THEN NULL WHEN enabled THEN now() ELSE disabled_at END,
         failing_since = CASE WHEN $6 IS TRUE AND NOT enabled THEN NULL ELSE failing_since END,
         updated_at = now()
       WHERE workspace_id = $1 AND id = $2 RETURNING *`,
      [workspaceId, id, patch.url ?? null, patch.description ?? null, patch.eventTypes ?? null, patch.enabled ?? null],
    );
    return rows[0] ?? null;
  }

  async delete(tx: Tx, workspaceId: string, id: string): Promise<boolean> {
    return (await changedRows(tx, 'DELETE FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2 RETURNING id', [workspaceId, id])).length === 1;
  }

  /** The new secret signs from now; the current one keeps signing beside it for `overlapMs`. */
  async rotate(tx: Tx, workspaceId: string, id: string, sealed: string, overlapMs: number): Promise<EndpointRow | null> {
    const rows = await changedRows<EndpointRow>(
      tx,
      `UPDATE webhook_endpoints SET previous_secret_sealed = secret_sealed, secret_sealed = $3,
         previous_secret_expires_at = now() + $4 * interval '1 millisecond', updated_at = now()
       WHERE workspace_id = $1 AND id = $2 RETURNING *`,
      [workspaceId, id, sealed, overlapMs],
    );
    return rows[0] ?? null;
  }

  /** The enabled endpoints of a workspace taking a type, over `:workspace_id` and `:type` (the outbox binds them). */
  static readonly SUBSCRIBED_ENDPOINT =
    `SELECT id FROM webhook_endpoints WHERE workspace_id = :workspace_id AND enabled AND (:type = ANY(event_types) OR '*' = ANY(event_types))`;

  /** The enabled endpoints of the workspace subscribed to `type` (one indexed query). */
  async subscribed(workspaceId: string, type: string): Promise<string[]> {
    const sql = WebhooksRepository.SUBSCRIBED_ENDPOINT.replaceAll(':workspace_id', '$1').replaceAll(':type', '$2');
    const rows: Array<{ id: string }> = await this.ds.query(sql, [workspaceId, type]);
    return rows.map((r) => r.id);
  }

  /** One delivery per endpoint; an event fanned out again inserts nothing new. Answers how many were new. */
  async insertDeliveries(endpointIds: readonly string[], workspaceId: string, eventId: string, eventType: string, body: unknown): Promise<number> {
    if (endpointIds.length === 0) return 0;
    const ids = endpointIds.map(() => newId('whd'));
    const rows = await insertedRows(
      this.ds.manager,
      `INSERT INTO webhook_deliveries (id, endpoint_id, workspace_id, event_id, event_type, body)
       SELECT d.id, d.endpoint_id, $3, $4, $5, $6::jsonb FROM unnest($1::text[], $2::text[]) AS d(id, endpoint_id)
       ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id`,
      [ids, endpointIds, workspaceId, eventId, eventType, jsonParam(body)],
    );
    return rows.length;
  }

  async insertDelivery(tx: Tx, endpointId: string, workspaceId: string, eventId: string, eventType: string, body: unknown): Promise<DeliveryView> {
    const id = newId('whd');
    await tx.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, workspace_id, event_id, event_type, body) VALUES ($1, $2, $3, $4, $5, $6::jsonb)`,
      [id, endpointId, workspaceId, eventId, eventType, jsonParam(body)],
    );
    return (await this.findDelivery(workspaceId, endpointId, id, tx))!;
  }

  async listDeliveries(workspaceId: string, endpointId: string, filter: DeliveryFilter, page: PageRequest): Promise<Page<DeliveryView>> {
    const where = `d.workspace_id = $1 AND d.endpoint_id = $2 AND ($3::text IS NULL OR d.status = $3) AND ($4::text IS NULL OR d.event_type = $4)`;
    const params = [workspaceId, endpointId, filter.status ?? null, filter.eventType ?? null];
    const [rows, total]: [DeliveryRow[], Array<{ n: number }>] = await Promise.all([
      this.ds.query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE ${where} ORDER BY d.created_at DESC, d.id DESC LIMIT $5 OFFSET $6`, [
        ...params,
        page.pageSize,
        offsetOf(page),
      ]),
      this.ds.query(`SELECT count(*)::int AS n FROM webhook_deliveries d WHERE ${where}`, params),
    ]);
    return { items: rows.map(deliveryView), page: page.page, pageSize: page.pageSize, total: total[0].n };
  }

  async findDelivery(workspaceId: string, endpointId: string, id: string, tx?: Tx): Promise<DeliveryView | null> {
    const rows: DeliveryRow[] = await (tx ?? this.ds.manager).query(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE d.workspace_id = $1 AND d.endpoint_id = $2 AND d.id = $3`,
      [workspaceId, endpointId, id],
    );
    return rows[0] ? deliveryView(rows[0]) : null;
  }

  /** Queues a finished delivery again, due now; false when it is pending or being delivered. */
  async requeue(tx: Tx, workspaceId: string, endpointId: string, id: string): Promise<boolean> {
    const rows = await changedRows(
      tx,
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), leased_until = NULL, delivered_at = NULL
       WHERE workspace_id = $1 AND endpoint_id = $2 AND id = $3 AND status IN ('delivered', 'failed') RETURNING id`,
      [workspaceId, endpointId, id],
    );
    return rows.length === 1;
  }
}
