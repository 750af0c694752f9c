import { randomUUID } from 'node:crypto';
import { admission, afterFailure, afterSuccess, claimTrial, CLOSED, type Circuit, type CircuitPolicy, type CircuitState } from '../../domain/circuit.js';
import { currentHealth, nextAverage, rankEndpoints, type Health } from '../../domain/routing-rules.js';
import { RouterState, type ClaimRequest, type CloudOutcome, type EndpointRuntime, type Lease, type RoutingStats, type SlotClaim } from '../../application/router-state.js';

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
  private version = '';
  private bumps = 0;
  private readonly counters = { selfhosted: 0, cloud: 0, fallbacks: 0, byReason: {} as Record<string, number> };

  async runtime(endpointIds: string[], now: number): Promise<Map<string, EndpointRuntime>> {
    return new Map(endpointIds.map((id) => [id, this.view(this.entry(id), now)]));
  }

  async claimBest(req: ClaimRequest): Promise<SlotClaim> {
    if (req.version !== undefined && req.version !== this.version) return { refused: 'stale' };
    const { now, leaseMs } = req;
    const states = req.candidates.map((c) => {
      const rt = this.view(this.entry(c.id), now);
      return { ...c, health: currentHealth(rt.health, rt.healthCheckedAt, now, req.healthTtlMs), load: rt.load, avgLatencyMs: rt.avgLatencyMs, circuit: rt.circuit };
    });
    const best = rankEndpoints(states, now)[0];
    if (!best) return { refused: 'none' };
    const e = this.entry(best.id);
    const trial = admission(e.circuit, now) === 'trial';
    const token = randomUUID();
    if (trial) e.circuit = claimTrial(e.circuit, token, now, leaseMs);
    e.slots.set(token, now + leaseMs);
    return { lease: { endpointId: best.id, token, trial } };
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

  async succeeded(lease: Lease, latencyMs: number, now: number): Promise<CircuitState> {
    this.statsSince ??= now;
    this.counters.selfhosted += 1;
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

  async countCloud(outcome: CloudOutcome, now: number, version?: string): Promise<'counted' | 'stale'> {
    if (version !== undefined && version !== this.version) return 'stale';
    this.statsSince ??= now;
    this.counters.cloud += 1;
    if (outcome.fallback) {
      this.counters.fallbacks += 1;
      this.counters.byReason[outcome.fallback] = (this.counters.byReason[outcome.fallback] ?? 0) + 1;
    }
    return 'counted';
  }

  async stats(now: number): Promise<RoutingStats> {
    this.statsSince ??= now;
    return { since: new Date(this.statsSince), ...this.counters, byReason: { ...this.counters.byReason } };
  }

  async settingsVersion(): Promise<string> {
    return this.version;
  }

  async bumpSettingsVersion(): Promise<void> {
    this.bumps += 1;
    this.version = String(this.bumps);
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
