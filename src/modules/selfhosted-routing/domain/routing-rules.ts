import { hash } from 'node:crypto';
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
  return hash('sha256', jobId, 'buffer').readUInt32BE(0) % 100;
}

export function takesSelfHosted(jobId: string, percentage: number): boolean {
  return bucketOf(jobId) < percentage;
}

/** Whether an endpoint, as the database describes it, takes a job of this kind at all. */
export function serves(e: { status: 'active' | 'disabled'; capabilities: readonly Capability[] }, capability: Capability): boolean {
  return e.status === 'active' && e.capabilities.includes(capability);
}

/** An endpoint that serves the job, with what every process knows of it right now. */
export interface EndpointState {
  id: string;
  maxConcurrency: number;
  /** Already tried by this job: a retry prefers another endpoint when there is one. */
  tried: boolean;
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
 * The rest of contract §13's eligibility, on the shared state: not (freshly) unhealthy, below its
 * limit, and a circuit that admits a request. The state stores check it and claim the slot in one
 * atomic step, so another process cannot take the last slot or the trial in between.
 */
export function isAvailable(e: EndpointState, now: number): boolean {
  return e.health !== 'unhealthy' && e.load < e.maxConcurrency && admission(e.circuit, now) !== 'refused';
}

/**
 * The order to try available endpoints in: endpoints this job already tried go last; then least
 * load relative to capacity; then lower average latency (an endpoint without one yet goes first
 * among equals, so it gets measured); then the order given (the directory's: oldest first).
 */
export function rankEndpoints(endpoints: EndpointState[], now: number): EndpointState[] {
  return endpoints
    .filter((e) => isAvailable(e, now))
    .sort(
      (a, b) =>
        Number(a.tried) - Number(b.tried) ||
        a.load / a.maxConcurrency - b.load / b.maxConcurrency ||
        (a.avgLatencyMs ?? -1) - (b.avgLatencyMs ?? -1),
    );
}

/** The weight of the newest sample in an endpoint's average latency (an exponentially weighted mean). */
export const LATENCY_WEIGHT = 0.2;

export function nextAverage(previous: number | null, sampleMs: number): number {
  return previous === null ? sampleMs : previous * (1 - LATENCY_WEIGHT) + sampleMs * LATENCY_WEIGHT;
}
