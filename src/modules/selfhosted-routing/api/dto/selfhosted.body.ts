import type { EndpointWithRuntime, RoutingOverview } from '../../application/selfhosted-admin.service.js';
import type { RoutingSettings } from '../../domain/endpoint.js';
import { standingOf } from '../../domain/endpoint-standing.js';
import { currentHealth } from '../../domain/routing-rules.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function routingBody(r: RoutingSettings): Record<string, unknown> {
  return { enabled: r.enabled, routing_percentage: r.percentage, updated_at: r.updatedAt.toISOString() };
}

/** An endpoint on the wire: its settings, whether a key is set (never the key), and its shared telemetry. */
export function endpointBody({ endpoint: e, runtime: rt }: EndpointWithRuntime, healthTtlMs: number, now = Date.now()): Record<string, unknown> {
  const standing = standingOf(e.status, currentHealth(rt.health, rt.healthCheckedAt, now, healthTtlMs), rt.circuit.state);
  return {
    id: e.id,
    name: e.name,
    url: e.url,
    kind: e.kind,
    status: e.status,
    max_concurrency: e.maxConcurrency,
    capabilities: e.capabilities,
    api_key_set: e.apiKeySealed !== null,
    workflow: e.workflow,
    health: standing.health,
    availability: standing.availability,
    probe_health: standing.probeHealth,
    last_error: rt.lastError,
    current_load: rt.load,
    avg_latency_ms: rt.avgLatencyMs === null ? null : Math.round(rt.avgLatencyMs),
    consecutive_failures: rt.circuit.consecutiveFailures,
    circuit: rt.circuit.state,
    circuit_opened_at: iso(rt.circuit.openedAt),
    circuit_retry_at: iso(rt.circuit.retryAt),
    last_checked_at: iso(rt.healthCheckedAt),
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

export function overviewBody(o: RoutingOverview, healthTtlMs: number): Record<string, unknown> {
  const now = Date.now();
  return {
    routing: routingBody(o.routing),
    endpoints: o.endpoints.map((e) => endpointBody(e, healthTtlMs, now)),
    stats: { since: o.stats.since.toISOString(), selfhosted: o.stats.selfhosted, cloud: o.stats.cloud, fallbacks: o.stats.fallbacks, by_reason: o.stats.byReason },
  };
}
