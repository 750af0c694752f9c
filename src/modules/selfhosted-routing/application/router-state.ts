import type { Circuit, CircuitPolicy, CircuitState } from '../domain/circuit.js';
import type { FallbackReason, Health } from '../domain/routing-rules.js';

/** What every process knows of one endpoint: health, load, latency, last error and its circuit. */
export interface EndpointRuntime {
  health: Health;
  healthCheckedAt: number | null;
  lastError: string | null;
  load: number;
  avgLatencyMs: number | null;
  circuit: Circuit;
}

/** A held concurrency slot. `trial`: the one request a half-open circuit lets through. */
export interface Lease {
  endpointId: string;
  token: string;
  trial: boolean;
}

/** An endpoint a job may draw on: active and capable, as the directory says. The store adds what every process knows. */
export interface Candidate {
  id: string;
  maxConcurrency: number;
  /** Already tried by this job. */
  tried: boolean;
}

export interface ClaimRequest {
  /** In the directory's order (oldest first), which breaks ties. */
  candidates: Candidate[];
  /** The settings version the job was planned under: the claim is refused as `stale` under any other. Absent: not checked. */
  version?: string;
  now: number;
  leaseMs: number;
  /** How long an unhealthy probe result keeps an endpoint out. */
  healthTtlMs: number;
}

/** `none`: no candidate is available (full, open circuit, freshly unhealthy, or none given). */
export type SlotClaim = { lease: Lease } | { refused: 'none' | 'stale' };

export interface RoutingStats {
  since: Date;
  selfhosted: number;
  cloud: number;
  fallbacks: number;
  byReason: Record<string, number>;
}

/** A job that took the cloud path, for the shared stats: `fallback` when it was meant for self-hosted. */
export interface CloudOutcome {
  fallback: FallbackReason | null;
}

/**
 * Routing state shared by every API and worker process: Redis when configured, else this
 * process's memory (development without Redis runs one process). Claims and circuit changes are
 * atomic: two processes can never both take the last slot or both run the half-open trial.
 * A slot is a lease: its holder renews it while the request runs, and a dead holder's slot lapses.
 */
export abstract class RouterState {
  /** Every listed endpoint's runtime, in one round trip; an endpoint never seen is unknown and closed. */
  abstract runtime(endpointIds: string[], now: number): Promise<Map<string, EndpointRuntime>>;
  /**
   * Checks the settings version, ranks the candidates by domain/routing-rules.ts and takes a slot
   * (or the half-open trial) on the best available one, all in one atomic step: one round trip.
   */
  abstract claimBest(req: ClaimRequest): Promise<SlotClaim>;
  abstract renew(lease: Lease, now: number, leaseMs: number): Promise<void>;
  /** Frees a slot without an outcome (settling one with `succeeded`/`failed` frees it too). */
  abstract release(lease: Lease): Promise<void>;
  /** A request that succeeded: its slot released, latency into the average, the circuit's rule, and the job counted as self-hosted. */
  abstract succeeded(lease: Lease, latencyMs: number, now: number): Promise<CircuitState>;
  /** A request that failed, its slot released; `counted` when it was the endpoint's fault. Answers the circuit after it. */
  abstract failed(lease: Lease, error: string, counted: boolean, now: number, policy: CircuitPolicy): Promise<CircuitState>;
  abstract recordHealth(endpointId: string, health: 'healthy' | 'unhealthy', error: string | null, now: number): Promise<void>;
  /** One process probes an endpoint per window: true for the caller that won the window. */
  abstract claimProbe(endpointId: string, windowMs: number): Promise<boolean>;
  /**
   * Counts a job that took the cloud path. With `version`, only under that settings version: else
   * nothing is counted and the answer is `stale` (the job is planned again on fresh settings).
   */
  abstract countCloud(outcome: CloudOutcome, now: number, version?: string): Promise<'counted' | 'stale'>;
  abstract stats(now: number): Promise<RoutingStats>;
  /** A value that changes whenever the endpoints or the routing setting change, in any process ('' before the first change). */
  abstract settingsVersion(): Promise<string>;
  abstract bumpSettingsVersion(): Promise<void>;
  /** A deleted endpoint's state goes with it (its running requests still release their slots). */
  abstract forget(endpointId: string): Promise<void>;
}
