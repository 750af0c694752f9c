import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { CLOSED, type Circuit, type CircuitPolicy, type CircuitState } from '../../domain/circuit.js';
import { LATENCY_WEIGHT, type Health } from '../../domain/routing-rules.js';
import { RouterState, type EndpointRuntime, type Lease, type RoutedOutcome, type RoutingStats, type SlotClaim } from '../../application/router-state.js';

/*
 * The scripts apply domain/circuit.ts's rules inside Redis, so that a claim, a trial and a circuit
 * change are each one atomic step seen alike by every process. The store contract spec runs the
 * same cases against this adapter and the in-memory one, which calls circuit.ts directly.
 * KEYS[1] is the endpoint's hash, KEYS[2] its set of slot leases (token scored by expiry).
 */

/** ARGV: token, max, now, leaseMs. Answers 0 full, -1 circuit open, 1 a slot, 2 the half-open trial. */
const CLAIM = `
local now = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 0 end
local c = redis.call('HMGET', KEYS[1], 'state', 'retry_at', 'trial_until')
local state = c[1] or 'closed'
local trial = 0
if state == 'open' then
  if now < tonumber(c[2] or 0) then return -1 end
  trial = 1
elseif state == 'half_open' then
  if now < tonumber(c[3] or 0) then return -1 end
  trial = 1
end
if trial == 1 then
  redis.call('HSET', KEYS[1], 'state', 'half_open', 'trial_token', ARGV[1], 'trial_until', now + lease)
end
redis.call('ZADD', KEYS[2], now + lease, ARGV[1])
redis.call('PEXPIRE', KEYS[2], lease * 2)
return 1 + trial`;

/** ARGV: token, until, leaseMs. */
const RENEW = `
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[1])
  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]) * 2)
  if redis.call('HGET', KEYS[1], 'trial_token') == ARGV[1] then redis.call('HSET', KEYS[1], 'trial_until', ARGV[2]) end
end
return 1`;

/** KEYS[2] the slots. ARGV: token, latencyMs, weight. Releases the slot; answers the circuit's state after it. */
const SUCCEEDED = `
redis.call('ZREM', KEYS[2], ARGV[1])
local c = redis.call('HMGET', KEYS[1], 'state', 'trial_token', 'avg_latency')
local sample = tonumber(ARGV[2])
local avg = tonumber(c[3] or '')
if avg then avg = avg * (1 - tonumber(ARGV[3])) + sample * tonumber(ARGV[3]) else avg = sample end
redis.call('HSET', KEYS[1], 'avg_latency', tostring(avg))
local state = c[1] or 'closed'
if state == 'closed' then
  redis.call('HSET', KEYS[1], 'failures', 0)
elseif state == 'half_open' and c[2] == ARGV[1] then
  redis.call('HSET', KEYS[1], 'state', 'closed', 'failures', 0)
  redis.call('HDEL', KEYS[1], 'opened_at', 'retry_at', 'trial_token', 'trial_until')
  state = 'closed'
end
return state`;

/** KEYS[2] the slots. ARGV: token, error, counted (1/0), now, threshold, resetMs. Releases the slot; answers the circuit's state after it. */
const FAILED = `
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'last_error', ARGV[2])
local c = redis.call('HMGET', KEYS[1], 'state', 'trial_token', 'failures')
local state = c[1] or 'closed'
local isTrial = state == 'half_open' and c[2] == ARGV[1]
if ARGV[3] == '0' then
  if isTrial then redis.call('HDEL', KEYS[1], 'trial_token', 'trial_until') end
  return state
end
if state == 'open' then return state end
local failures = tonumber(c[3] or 0) + 1
if state == 'half_open' then
  if not isTrial then return state end
elseif failures < tonumber(ARGV[5]) then
  redis.call('HSET', KEYS[1], 'failures', failures)
  return state
end
local now = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'state', 'open', 'failures', failures, 'opened_at', now, 'retry_at', now + tonumber(ARGV[6]))
redis.call('HDEL', KEYS[1], 'trial_token', 'trial_until')
return 'open'`;

type ScriptedRedis = Redis & {
  shClaim(hash: string, slots: string, token: string, max: number, now: number, leaseMs: number): Promise<number>;
  shRenew(hash: string, slots: string, token: string, until: number, leaseMs: number): Promise<number>;
  shSucceeded(hash: string, slots: string, token: string, latencyMs: number, weight: number): Promise<CircuitState>;
  shFailed(hash: string, slots: string, token: string, error: string, counted: 0 | 1, now: number, threshold: number, resetMs: number): Promise<CircuitState>;
};

const num = (v: string | undefined): number | null => (v === undefined || v === '' ? null : Number(v));

/** The router's state in Redis, shared by every API and worker process. */
export class RedisRouterState extends RouterState {
  private readonly redis: ScriptedRedis;

  constructor(redis: Redis, private readonly prefix: string) {
    super();
    redis.defineCommand('shClaim', { numberOfKeys: 2, lua: CLAIM });
    redis.defineCommand('shRenew', { numberOfKeys: 2, lua: RENEW });
    redis.defineCommand('shSucceeded', { numberOfKeys: 2, lua: SUCCEEDED });
    redis.defineCommand('shFailed', { numberOfKeys: 2, lua: FAILED });
    this.redis = redis as ScriptedRedis;
  }

  async runtime(endpointIds: string[], now: number): Promise<Map<string, EndpointRuntime>> {
    if (endpointIds.length === 0) return new Map();
    const pipe = this.redis.pipeline();
    for (const id of endpointIds) pipe.hgetall(this.hash(id)).zcount(this.slots(id), `(${now}`, '+inf');
    const replies = (await pipe.exec()) ?? [];
    return new Map(
      endpointIds.map((id, i) => {
        const fields = (replies[2 * i]?.[1] ?? {}) as Record<string, string>;
        const load = Number(replies[2 * i + 1]?.[1] ?? 0);
        return [id, toRuntime(fields, load)];
      }),
    );
  }

  async claim(endpointId: string, maxConcurrency: number, now: number, leaseMs: number): Promise<SlotClaim> {
    const token = randomUUID();
    const answer = await this.redis.shClaim(this.hash(endpointId), this.slots(endpointId), token, maxConcurrency, now, leaseMs);
    if (answer === 0) return { refused: 'full' };
    if (answer === -1) return { refused: 'circuit_open' };
    return { lease: { endpointId, token, trial: answer === 2 } };
  }

  async renew(lease: Lease, now: number, leaseMs: number): Promise<void> {
    await this.redis.shRenew(this.hash(lease.endpointId), this.slots(lease.endpointId), lease.token, now + leaseMs, leaseMs);
  }

  async release(lease: Lease): Promise<void> {
    await this.redis.zrem(this.slots(lease.endpointId), lease.token);
  }

  succeeded(lease: Lease, latencyMs: number): Promise<CircuitState> {
    return this.redis.shSucceeded(this.hash(lease.endpointId), this.slots(lease.endpointId), lease.token, latencyMs, LATENCY_WEIGHT);
  }

  failed(lease: Lease, error: string, counted: boolean, now: number, policy: CircuitPolicy): Promise<CircuitState> {
    return this.redis.shFailed(this.hash(lease.endpointId), this.slots(lease.endpointId), lease.token, error, counted ? 1 : 0, now, policy.threshold, policy.resetMs);
  }

  async recordHealth(endpointId: string, health: 'healthy' | 'unhealthy', error: string | null, now: number): Promise<void> {
    const fields: Record<string, string | number> = { health, health_at: now };
    if (error) fields.last_error = error;
    await this.redis.hset(this.hash(endpointId), fields);
  }

  async claimProbe(endpointId: string, windowMs: number): Promise<boolean> {
    return (await this.redis.set(`${this.prefix}:sh:probe:${endpointId}`, '1', 'PX', windowMs, 'NX')) === 'OK';
  }

  async count(outcome: RoutedOutcome, now: number): Promise<void> {
    const key = this.statsKey();
    const pipe = this.redis.pipeline().hsetnx(key, 'since', now);
    if (outcome.route === 'selfhosted') pipe.hincrby(key, 'selfhosted', 1);
    else {
      pipe.hincrby(key, 'cloud', 1);
      if (outcome.fallback) pipe.hincrby(key, 'fallbacks', 1).hincrby(key, `reason:${outcome.fallback}`, 1);
    }
    await pipe.exec();
  }

  async stats(now: number): Promise<RoutingStats> {
    await this.redis.hsetnx(this.statsKey(), 'since', now);
    const f = await this.redis.hgetall(this.statsKey());
    const byReason: Record<string, number> = {};
    for (const [k, v] of Object.entries(f)) if (k.startsWith('reason:')) byReason[k.slice('reason:'.length)] = Number(v);
    return { since: new Date(Number(f.since)), selfhosted: Number(f.selfhosted ?? 0), cloud: Number(f.cloud ?? 0), fallbacks: Number(f.fallbacks ?? 0), byReason };
  }

  settingsVersion(): Promise<string | null> {
    return this.redis.get(`${this.prefix}:sh:version`);
  }

  /** A random value, not a counter: an emptied Redis must not count back up to a version a process holds. */
  async bumpSettingsVersion(): Promise<void> {
    await this.redis.set(`${this.prefix}:sh:version`, randomUUID());
  }

  async forget(endpointId: string): Promise<void> {
    await this.redis.del(this.hash(endpointId), this.slots(endpointId), `${this.prefix}:sh:probe:${endpointId}`);
  }

  private hash(id: string): string {
    return `${this.prefix}:sh:ep:${id}`;
  }

  private slots(id: string): string {
    return `${this.prefix}:sh:slots:${id}`;
  }

  private statsKey(): string {
    return `${this.prefix}:sh:stats`;
  }
}

function toRuntime(f: Record<string, string>, load: number): EndpointRuntime {
  const circuit: Circuit = f.state
    ? {
        state: f.state as CircuitState,
        consecutiveFailures: Number(f.failures ?? 0),
        openedAt: num(f.opened_at),
        retryAt: num(f.retry_at),
        trialToken: f.trial_token ?? null,
        trialUntil: num(f.trial_until),
      }
    : { ...CLOSED, consecutiveFailures: Number(f.failures ?? 0) };
  return {
    health: (f.health as Health | undefined) ?? 'unknown',
    healthCheckedAt: num(f.health_at),
    lastError: f.last_error ?? null,
    load,
    avgLatencyMs: num(f.avg_latency),
    circuit,
  };
}
