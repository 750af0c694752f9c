import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { CLOSED, type Circuit, type CircuitPolicy, type CircuitState } from '../../domain/circuit.js';
import { LATENCY_WEIGHT, type Health } from '../../domain/routing-rules.js';
import { RouterState, type ClaimRequest, type CloudOutcome, type EndpointRuntime, type Lease, type RoutingStats, type SlotClaim } from '../../application/router-state.js';

/*
 * The scripts apply domain/circuit.ts's and domain/routing-rules.ts's rules inside Redis, so that a
 * choice with its claim, a trial and a circuit change are each one atomic step seen alike by every
 * process, and a job's routing costs two round trips: the claim and the outcome. The store
 * contract spec runs the same cases against this adapter and the in-memory one, which calls the
 * domain functions directly. Below, an endpoint's hash holds its circuit, health and latency; its
 * set of slot leases holds tokens scored by expiry.
 */

/**
 * domain/routing-rules.ts's availability and ranking, then the claim, in one atomic step.
 * KEYS[1] the settings version; then for candidate i: KEYS[2i] its hash, KEYS[2i+1] its slots.
 * ARGV: check (1/0), version, now, leaseMs, healthTtlMs, token; then for candidate i: ARGV[5+2i]
 * its max, ARGV[6+2i] tried (1/0). Answers -1 stale, 0 none available, else 2 × the chosen
 * candidate's position, + 1 when its slot is the half-open trial.
 */
const CLAIM_BEST = `
if ARGV[1] == '1' and (redis.call('GET', KEYS[1]) or '') ~= ARGV[2] then return -1 end
local now = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
local ttl = tonumber(ARGV[5])
local best, bestTrial, bestTried, bestLoad, bestLatency
for i = 1, (#KEYS - 1) / 2 do
  local slots = KEYS[2 * i + 1]
  local max = tonumber(ARGV[5 + 2 * i])
  local tried = tonumber(ARGV[6 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
  local load = redis.call('ZCARD', slots)
  local f = redis.call('HMGET', KEYS[2 * i], 'state', 'retry_at', 'trial_until', 'health', 'health_at', 'avg_latency')
  local state = f[1] or 'closed'
  local admits, trial = true, false
  if state == 'open' then
    admits = now >= tonumber(f[2] or 0)
    trial = admits
  elseif state == 'half_open' then
    admits = now >= tonumber(f[3] or 0)
    trial = admits
  end
  local sick = f[4] == 'unhealthy' and f[5] and now - tonumber(f[5]) < ttl
  if admits and not sick and load < max then
    local rel = load / max
    local latency = tonumber(f[6] or '') or -1
    if best == nil or tried < bestTried or (tried == bestTried and (rel < bestLoad or (rel == bestLoad and latency < bestLatency))) then
      best, bestTrial, bestTried, bestLoad, bestLatency = i, trial, tried, rel, latency
    end
  end
end
if best == nil then return 0 end
if bestTrial then
  redis.call('HSET', KEYS[2 * best], 'state', 'half_open', 'trial_token', ARGV[6], 'trial_until', now + lease)
end
redis.call('ZADD', KEYS[2 * best + 1], now + lease, ARGV[6])
redis.call('PEXPIRE', KEYS[2 * best + 1], lease * 2)
if bestTrial then return 2 * best + 1 end
return 2 * best`;

/** KEYS[1] the endpoint's hash, KEYS[2] its slots. ARGV: token, until, leaseMs. */
const RENEW = `
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[1])
  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]) * 2)
  if redis.call('HGET', KEYS[1], 'trial_token') == ARGV[1] then redis.call('HSET', KEYS[1], 'trial_until', ARGV[2]) end
end
return 1`;

/**
 * KEYS[1] the endpoint's hash, KEYS[2] its slots, KEYS[3] the stats. ARGV: token, latencyMs,
 * weight, now. Releases the slot and counts the job as self-hosted; answers the circuit's state.
 */
const SUCCEEDED = `
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HSETNX', KEYS[3], 'since', ARGV[4])
redis.call('HINCRBY', KEYS[3], 'selfhosted', 1)
local c = redis.call('HMGET', KEYS[1], 'state', 'trial_token', 'avg_latency')
local sample = tonumber(ARGV[2])
local avg = tonumber(c[3] or '')
if avg then avg = avg * (1 - tonumber(ARGV[3])) + sample * tonumber(ARGV[3]) else avg = sample end
redis.call('HSET', KEYS[1], 'avg_latency', string.format('%.17g', avg))
local state = c[1] or 'closed'
if state == 'closed' then
  redis.call('HSET', KEYS[1], 'failures', 0)
elseif state == 'half_open' and c[2] == ARGV[1] then
  redis.call('HSET', KEYS[1], 'state', 'closed', 'failures', 0)
  redis.call('HDEL', KEYS[1], 'opened_at', 'retry_at', 'trial_token', 'trial_until')
  state = 'closed'
end
return state`;

/** KEYS[1] the endpoint's hash, KEYS[2] its slots. ARGV: token, error, counted (1/0), now, threshold, resetMs. Releases the slot; answers the circuit's state after it. */
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

/** KEYS[1] the settings version, KEYS[2] the stats. ARGV: check (1/0), version, now, fallback reason (or ''). Answers 0 when stale. */
const COUNT_CLOUD = `
if ARGV[1] == '1' and (redis.call('GET', KEYS[1]) or '') ~= ARGV[2] then return 0 end
redis.call('HSETNX', KEYS[2], 'since', ARGV[3])
redis.call('HINCRBY', KEYS[2], 'cloud', 1)
if ARGV[4] ~= '' then
  redis.call('HINCRBY', KEYS[2], 'fallbacks', 1)
  redis.call('HINCRBY', KEYS[2], 'reason:' .. ARGV[4], 1)
end
return 1`;

type ScriptedRedis = Redis & {
  /** Keys and arguments as CLAIM_BEST reads them, the number of keys first. */
  shClaimBest(...numKeysKeysArgs: Array<string | number>): Promise<number>;
  shCountCloud(version: string, stats: string, check: 0 | 1, held: string, now: number, fallback: string): Promise<number>;
  shRenew(hash: string, slots: string, token: string, until: number, leaseMs: number): Promise<number>;
  shSucceeded(hash: string, slots: string, stats: string, token: string, latencyMs: number, weight: number, now: number): Promise<CircuitState>;
  shFailed(hash: string, slots: string, token: string, error: string, counted: 0 | 1, now: number, threshold: number, resetMs: number): Promise<CircuitState>;
};

const num = (v: string | undefined): number | null => (v === undefined || v === '' ? null : Number(v));

/** The router's state in Redis, shared by every API and worker process. */
export class RedisRouterState extends RouterState {
  private readonly redis: ScriptedRedis;

  constructor(redis: Redis, private readonly prefix: string) {
    super();
    redis.defineCommand('shClaimBest', { lua: CLAIM_BEST });
    redis.defineCommand('shCountCloud', { numberOfKeys: 2, lua: COUNT_CLOUD });
    redis.defineCommand('shRenew', { numberOfKeys: 2, lua: RENEW });
    redis.defineCommand('shSucceeded', { numberOfKeys: 3, lua: SUCCEEDED });
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

  async claimBest(req: ClaimRequest): Promise<SlotClaim> {
    const { candidates } = req;
    const token = randomUUID();
    const keys: string[] = [this.versionKey()];
    const args: Array<string | number> = [req.version === undefined ? 0 : 1, req.version ?? '', req.now, req.leaseMs, req.healthTtlMs, token];
    for (const c of candidates) {
      keys.push(this.hash(c.id), this.slots(c.id));
      args.push(c.maxConcurrency, c.tried ? 1 : 0);
    }
    const answer = await this.redis.shClaimBest(keys.length, ...keys, ...args);
    if (answer === -1) return { refused: 'stale' };
    if (answer === 0) return { refused: 'none' };
    return { lease: { endpointId: candidates[(answer >> 1) - 1].id, token, trial: (answer & 1) === 1 } };
  }

  async renew(lease: Lease, now: number, leaseMs: number): Promise<void> {
    await this.redis.shRenew(this.hash(lease.endpointId), this.slots(lease.endpointId), lease.token, now + leaseMs, leaseMs);
  }

  async release(lease: Lease): Promise<void> {
    await this.redis.zrem(this.slots(lease.endpointId), lease.token);
  }

  succeeded(lease: Lease, latencyMs: number, now: number): Promise<CircuitState> {
    return this.redis.shSucceeded(this.hash(lease.endpointId), this.slots(lease.endpointId), this.statsKey(), lease.token, latencyMs, LATENCY_WEIGHT, now);
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

  async countCloud(outcome: CloudOutcome, now: number, version?: string): Promise<'counted' | 'stale'> {
    const counted = await this.redis.shCountCloud(this.versionKey(), this.statsKey(), version === undefined ? 0 : 1, version ?? '', now, outcome.fallback ?? '');
    return counted === 1 ? 'counted' : 'stale';
  }

  async stats(now: number): Promise<RoutingStats> {
    await this.redis.hsetnx(this.statsKey(), 'since', now);
    const f = await this.redis.hgetall(this.statsKey());
    const byReason: Record<string, number> = {};
    for (const [k, v] of Object.entries(f)) if (k.startsWith('reason:')) byReason[k.slice('reason:'.length)] = Number(v);
    return { since: new Date(Number(f.since)), selfhosted: Number(f.selfhosted ?? 0), cloud: Number(f.cloud ?? 0), fallbacks: Number(f.fallbacks ?? 0), byReason };
  }

  async settingsVersion(): Promise<string> {
    return (await this.redis.get(this.versionKey())) ?? '';
  }

  /** A random value, not a counter: an emptied Redis must not count back up to a version a process holds. */
  async bumpSettingsVersion(): Promise<void> {
    await this.redis.set(this.versionKey(), randomUUID());
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

  private versionKey(): string {
    return `${this.prefix}:sh:version`;
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
