import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';
import type { EndpointKind } from '../application/ports/gpu-backend.js';
import type { Endpoint, EndpointStatus, RoutingSettings } from '../domain/endpoint.js';
import type { Capability } from '../domain/routing-rules.js';

interface EndpointRow {
  id: string;
  name: string;
  url: string;
  kind: EndpointKind;
  status: EndpointStatus;
  max_concurrency: number;
  capabilities: Capability[];
  api_key_sealed: string | null;
  workflow: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}

function toEndpoint(r: EndpointRow): Endpoint {
  return {
    id: r.id,
    name: r.name,
    url: r.url,
    kind: r.kind,
    status: r.status,
    maxConcurrency: r.max_concurrency,
    capabilities: r.capabilities,
    apiKeySealed: r.api_key_sealed,
    workflow: r.workflow,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export type EndpointChanges = Partial<Pick<Endpoint, 'name' | 'url' | 'kind' | 'status' | 'maxConcurrency' | 'capabilities' | 'apiKeySealed' | 'workflow'>>;

const COLUMNS: Record<keyof EndpointChanges, string> = {
  name: 'name',
  url: 'url',
  kind: 'kind',
  status: 'status',
  maxConcurrency: 'max_concurrency',
  capabilities: 'capabilities',
  apiKeySealed: 'api_key_sealed',
  workflow: 'workflow',
};

/**
 * Self-hosted endpoints and the routing setting. These are the service's own infrastructure, set
 * by platform admins, not a workspace's data: no method takes a workspace id.
 */
@Injectable()
export class SelfHostedRepository {
  async listEndpoints(m: Tx): Promise<Endpoint[]> {
    const rows: EndpointRow[] = await m.query('SELECT * FROM selfhosted_endpoints ORDER BY created_at, id');
    return rows.map(toEndpoint);
  }

  async findEndpoint(m: Tx, id: string, opts: { lock?: boolean } = {}): Promise<Endpoint | null> {
    const rows: EndpointRow[] = await m.query(`SELECT * FROM selfhosted_endpoints WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [id]);
    return rows[0] ? toEndpoint(rows[0]) : null;
  }

  async insertEndpoint(m: Tx, e: Endpoint): Promise<void> {
    await m.query(
      `INSERT INTO selfhosted_endpoints (id, name, url, kind, status, max_concurrency, capabilities, api_key_sealed, workflow, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [e.id, e.name, e.url, e.kind, e.status, e.maxConcurrency, e.capabilities, e.apiKeySealed, e.workflow === null ? null : JSON.stringify(e.workflow), e.createdAt, e.updatedAt],
    );
  }

  async updateEndpoint(m: Tx, id: string, changes: EndpointChanges, at: Date): Promise<Endpoint | null> {
    const sets = ['updated_at = $2'];
    const params: unknown[] = [id, at];
    for (const [key, column] of Object.entries(COLUMNS) as Array<[keyof EndpointChanges, string]>) {
      if (changes[key] === undefined) continue;
      const value = key === 'workflow' && changes.workflow !== null ? JSON.stringify(changes.workflow) : changes[key];
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    }
    // UPDATE and DELETE answer rows only inside a CTE: the driver hands back [rows, count] for them bare.
    const rows: EndpointRow[] = await m.query(`WITH changed AS (UPDATE selfhosted_endpoints SET ${sets.join(', ')} WHERE id = $1 RETURNING *) SELECT * FROM changed`, params);
    return rows[0] ? toEndpoint(rows[0]) : null;
  }

  async deleteEndpoint(m: Tx, id: string): Promise<boolean> {
    const rows: unknown[] = await m.query('WITH gone AS (DELETE FROM selfhosted_endpoints WHERE id = $1 RETURNING id) SELECT id FROM gone', [id]);
    return rows.length > 0;
  }

  async routing(m: Tx): Promise<RoutingSettings> {
    const rows: Array<{ enabled: boolean; routing_percentage: string; updated_at: Date }> = await m.query(
      'SELECT enabled, routing_percentage, updated_at FROM selfhosted_routing WHERE id = 1',
    );
    const r = rows[0];
    return { enabled: r.enabled, percentage: Number(r.routing_percentage), updatedAt: r.updated_at };
  }

  async setRouting(m: Tx, enabled: boolean, percentage: number, at: Date): Promise<RoutingSettings> {
    const rows: Array<{ enabled: boolean; routing_percentage: string; updated_at: Date }> = await m.query(
      `WITH changed AS (UPDATE selfhosted_routing SET enabled = $1, routing_percentage = $2, updated_at = $3 WHERE id = 1 RETURNING enabled, routing_percentage, updated_at)
       SELECT * FROM changed`,
      [enabled, percentage, at],
    );
    const r = rows[0];
    return { enabled: r.enabled, percentage: Number(r.routing_percentage), updatedAt: r.updated_at };
  }
}
