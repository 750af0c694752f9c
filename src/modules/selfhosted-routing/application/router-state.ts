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

export type SlotClaim = { lease: Lease } | { refused: 'full' | 'circuit_open' };

export interface RoutingStats {
  since: Date;
  selfhosted: number;
  cloud: number;
  fallbacks: number;
  byReason: Record<string, number>;
}

/** How one job's routing ended, for the shared stats. */
export type RoutedOutcome = { route: 'selfhosted' } | { route: 'cloud'; fallback: FallbackReason | null };

/**
 * Routing state shared by every API and worker process: Redis when configured, else this
 * process's memory (development without Redis runs one process). Claims and circuit changes are
 * atomic: two processes can never both take the last slot or both run the half-open trial.
 * A slot is a lease: its holder renews it while the request runs, and a dead holder's slot lapses.
 */
export abstract class RouterState {
  /** Every listed endpoint's runtime, in one round trip; an endpoint never seen is unknown and closed. */
  abstract runtime(endpointIds: string[], now: number): Promise<Map<string, EndpointRuntime>>;
  abstract claim(endpointId: string, maxConcurrency: number, now: number, leaseMs: number): Promise<SlotClaim>;
  abstract renew(lease: Lease, now: number, leaseMs: number): Promise<void>;
  /** Frees a slot without an outcome (settling one with `succeeded`/`failed` frees it too). */
  abstract release(lease: Lease): Promise<void>;
  /** A request that succeeded: its slot released, latency into the average, and the circuit's rule. */
  abstract succeeded(lease: Lease, latencyMs: number, now: number): Promise<CircuitState>;
  /** A request that failed, its slot released; `counted` when it was the endpoint's fault. Answers the circuit after it. */
  abstract failed(lease: Lease, error: string, counted: boolean, now: number, policy: CircuitPolicy): Promise<CircuitState>;
  abstract recordHealth(endpointId: string, health: 'healthy' | 'unhealthy', error: string | null, now: number): Promise<void>;
  /** One process probes an endpoint per window: true for the caller that won the window. */
  abstract claimProbe(endpointId: string, windowMs: number): Promise<boolean>;
  abstract count(outcome: RoutedOutcome, now: number): Promise<void>;
  abstract stats(now: number): Promise<RoutingStats>;
  /** A value that changes whenever the endpoints or the routing setting change, in any process. */
  abstract settingsVersion(): Promise<string | null>;
  abstract bumpSettingsVersion(): Promise<void>;
  /** A deleted endpoint's state goes with it (its running requests still release their slots). */
  abstract forget(endpointId: string): Promise<void>;
}
