import { randomUUID } from 'node:crypto';
import { admission, afterFailure, afterSuccess, claimTrial, CLOSED, type Circuit, type CircuitPolicy, type CircuitState } from '../../domain/circuit.js';
import { nextAverage, type Health } from '../../domain/routing-rules.js';
import { RouterState, type EndpointRuntime, type Lease, type RoutedOutcome, type RoutingStats, type SlotClaim } from '../../application/router-state.js';

interface Entry {
  circuit: Circuit;
  health: Health;
  healthCheckedAt: number | null;
  lastError: string | null;
  avgLatencyMs: number | null;
  /** Lease token → when it lapses. */
  slots: Map<string, number>;
  probeUntil: number;
}

/** The router's state in this process: for running without Redis, where there is one process. */
export class MemoryRouterState extends RouterState {
  private readonly entries = new Map<string, Entry>();
  private statsSince: number | null = null;
  private version = 0;
  private readonly counters = { selfhosted: 0, cloud: 0, fallbacks: 0, byReason: {} as Record<string, number> };

  async runtime(endpointIds: string[], now: number): Promise<Map<string, EndpointRuntime>> {
    return new Map(endpointIds.map((id) => [id, this.view(this.entry(id), now)]));
  }

  async claim(endpointId: string, maxConcurrency: number, now: number, leaseMs: number): Promise<SlotClaim> {
    const e = this.entry(endpointId);
    this.lapse(e, now);
    if (e.slots.size >= maxConcurrency) return { refused: 'full' };
    const admitted = admission(e.circuit, now);
    if (admitted === 'refused') return { refused: 'circuit_open' };
    const token = randomUUID();
    if (admitted === 'trial') e.circuit = claimTrial(e.circuit, token, now, leaseMs);
    e.slots.set(token, now + leaseMs);
    return { lease: { endpointId, token, trial: admitted === 'trial' } };
  }

  async renew(lease: Lease, now: number, leaseMs: number): Promise<void> {
    const e = this.entries.get(lease.endpointId);
    if (!e?.slots.has(lease.token)) return;
    e.slots.set(lease.token, now + leaseMs);
    if (e.circuit.trialToken === lease.token) e.circuit = { ...e.circuit, trialUntil: now + leaseMs };
  }

  async release(lease: Lease): Promise<void> {
    this.entries.get(lease.endpointId)?.slots.delete(lease.token);
  }

  async succeeded(lease: Lease, latencyMs: number): Promise<CircuitState> {
    const e = this.entry(lease.endpointId);
    e.slots.delete(lease.token);
    e.avgLatencyMs = nextAverage(e.avgLatencyMs, latencyMs);
    e.circuit = afterSuccess(e.circuit, lease.token);
    return e.circuit.state;
  }

  async failed(lease: Lease, error: string, counted: boolean, now: number, policy: CircuitPolicy): Promise<CircuitState> {
    const e = this.entry(lease.endpointId);
    e.slots.delete(lease.token);
    e.lastError = error;
    e.circuit = afterFailure(e.circuit, lease.token, counted, now, policy);
    return e.circuit.state;
  }

  async recordHealth(endpointId: string, health: 'healthy' | 'unhealthy', error: string | null, now: number): Promise<void> {
    const e = this.entry(endpointId);
    e.health = health;
    e.healthCheckedAt = now;
    if (error) e.lastError = error;
  }

  async claimProbe(endpointId: string, windowMs: number): Promise<boolean> {
    const e = this.entry(endpointId);
    const now = Date.now();
    if (now < e.probeUntil) return false;
    e.probeUntil = now + windowMs;
    return true;
  }

  async count(outcome: RoutedOutcome, now: number): Promise<void> {
    this.statsSince ??= now;
    if (outcome.route === 'selfhosted') {
      this.counters.selfhosted += 1;
      return;
    }
    this.counters.cloud += 1;
    if (outcome.fallback) {
      this.counters.fallbacks += 1;
      this.counters.byReason[outcome.fallback] = (this.counters.byReason[outcome.fallback] ?? 0) + 1;
    }
  }

  async stats(now: number): Promise<RoutingStats> {
    this.statsSince ??= now;
    return { since: new Date(this.statsSince), ...this.counters, byReason: { ...this.counters.byReason } };
  }

  async settingsVersion(): Promise<string | null> {
    return String(this.version);
  }

  async bumpSettingsVersion(): Promise<void> {
    this.version += 1;
  }

  async forget(endpointId: string): Promise<void> {
    this.entries.delete(endpointId);
  }

  private entry(id: string): Entry {
    let e = this.entries.get(id);
    if (!e) {
      e = { circuit: CLOSED, health: 'unknown', healthCheckedAt: null, lastError: null, avgLatencyMs: null, slots: new Map(), probeUntil: 0 };
      this.entries.set(id, e);
    }
    return e;
  }

  private lapse(e: Entry, now: number): void {
    for (const [token, until] of e.slots) if (until <= now) e.slots.delete(token);
  }

  private view(e: Entry, now: number): EndpointRuntime {
    this.lapse(e, now);
    return { health: e.health, healthCheckedAt: e.healthCheckedAt, lastError: e.lastError, load: e.slots.size, avgLatencyMs: e.avgLatencyMs, circuit: e.circuit };
  }
}
