import { createHash } from 'node:crypto';
import { admission, type Circuit } from './circuit.js';

export const CAPABILITIES = ['text_to_image', 'image_to_image'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export type Health = 'healthy' | 'unhealthy' | 'unknown';

/** Why a job took the cloud path without trying self-hosted (not a fallback). */
export type CloudReason = 'routing_disabled' | 'percentage' | 'lora';
/** Why a job chosen for self-hosted ended on the cloud path. */
export const FALLBACK_REASONS = ['no_eligible_endpoint', 'endpoint_failed', 'timeout'] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

/**
 * The job's bucket, 0-99: the first four bytes of SHA-256 of its id, big-endian, mod 100. The same
 * job always lands in the same bucket, so a retried job routes the way it did the first time.
 */
export function bucketOf(jobId: string): number {
  return createHash('sha256').update(jobId).digest().readUInt32BE(0) % 100;
}

export function takesSelfHosted(jobId: string, percentage: number): boolean {
  return bucketOf(jobId) < percentage;
}

/** An endpoint with what every process knows of it right now. */
export interface EndpointState {
  id: string;
  status: 'active' | 'disabled';
  capabilities: readonly Capability[];
  maxConcurrency: number;
  health: Health;
  load: number;
  avgLatencyMs: number | null;
  circuit: Circuit;
}

/** An unhealthy answer counts only while it is fresh; after that the endpoint is `unknown` again. */
export function currentHealth(health: Health, checkedAt: number | null, now: number, ttlMs: number): Health {
  if (checkedAt === null || now - checkedAt >= ttlMs) return 'unknown';
  return health;
}

/**
 * Contract §13's eligibility as last read. The claim of a slot checks load and circuit again,
 * atomically, since another process may have taken the last slot or the trial since.
 */
export function isEligible(e: EndpointState, capability: Capability, now: number): boolean {
  return (
    e.status === 'active' &&
    e.capabilities.includes(capability) &&
    e.health !== 'unhealthy' &&
    e.load < e.maxConcurrency &&
    admission(e.circuit, now) !== 'refused'
  );
}

/**
 * The order to try eligible endpoints in: least load relative to capacity, then lower average
 * latency (an endpoint without one yet goes first among equals, so it gets measured), then id.
 * Endpoints already tried by this job go last: a retry prefers another endpoint when there is one.
 */
export function rankEndpoints(endpoints: EndpointState[], capability: Capability, now: number, tried: ReadonlySet<string> = new Set()): EndpointState[] {
  return endpoints
    .filter((e) => isEligible(e, capability, now))
    .sort(
      (a, b) =>
        Number(tried.has(a.id)) - Number(tried.has(b.id)) ||
        a.load / a.maxConcurrency - b.load / b.maxConcurrency ||
        (a.avgLatencyMs ?? -1) - (b.avgLatencyMs ?? -1) ||
        a.id.localeCompare(b.id),
    );
}

/** The weight of the newest sample in an endpoint's average latency (an exponentially weighted mean). */
export const LATENCY_WEIGHT = 0.2;

export function nextAverage(previous: number | null, sampleMs: number): number {
  return previous === null ? sampleMs : previous * (1 - LATENCY_WEIGHT) + sampleMs * LATENCY_WEIGHT;
}
