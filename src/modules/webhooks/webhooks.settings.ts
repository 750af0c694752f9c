/**
 * Outbound webhook settings (docs/webhooks.md), read by the configuration (src/config/config.ts
 * composes them). Durations are written `500ms`, `5s`, `5m`, `2h`, `3d` (or a bare number of
 * milliseconds).
 */
export interface WebhooksSettings {
  /** `WEBHOOK_DELIVERY_IN_API`: API processes deliver too (workers always do, and so does an API that runs jobs itself). */
  readonly deliveryInApi: boolean;
  /** `WEBHOOK_RETRY_SCHEDULE`: the waits after each failed attempt; one attempt more than waits, then the delivery fails. */
  readonly retryScheduleMs: readonly number[];
  /** `WEBHOOK_DISABLE_AFTER`: an endpoint whose every attempt failed for this long is disabled (`failing`). */
  readonly disableAfterMs: number;
  /** `WEBHOOK_CONCURRENCY_PER_ENDPOINT`: attempts in flight to one endpoint, in one process. */
  readonly concurrencyPerEndpoint: number;
  /** `WEBHOOK_TIMEOUT`: one attempt, connect to last byte read. */
  readonly timeoutMs: number;
  /** `WEBHOOK_ROTATION_OVERLAP`: how long the previous secret keeps signing after a rotation. */
  readonly rotationOverlapMs: number;
  /** `WEBHOOK_LEASE`: a claim's life; a worker that dies mid-attempt is taken over after it. Longer than the timeout. */
  readonly leaseMs: number;
  /** `WEBHOOK_POLL`: how often an idle delivery loop looks for due deliveries. */
  readonly pollMs: number;
  /** `WEBHOOK_BATCH`: most attempts in flight in one process. */
  readonly batch: number;
}

type Env = Record<string, string | undefined>;

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `250ms`, `5s`, `30m`, `2h`, `3d` or a bare number of milliseconds; undefined when malformed. */
export function parseDuration(raw: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(raw.trim());
  if (!m) return undefined;
  const ms = Math.round(Number(m[1]) * UNITS[m[2] ?? 'ms']);
  return Number.isFinite(ms) ? ms : undefined;
}

function value(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function duration(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const ms = parseDuration(raw);
  if (ms === undefined || ms < min || ms > max) throw new Error(`${name} must be a duration from ${min} ms to ${max} ms (e.g. 10s, 5m, 3d), got "${raw}"`);
  return ms;
}

function whole(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return n;
}

export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h';

/** Throws an Error whose message is the one line start-up prints for a bad setting. */
export function parseWebhooksSettings(env: Env): WebhooksSettings {
  const rawSchedule = value(env, 'WEBHOOK_RETRY_SCHEDULE') ?? DEFAULT_RETRY_SCHEDULE;
  const retryScheduleMs = rawSchedule.split(',').map((s) => parseDuration(s));
  if (retryScheduleMs.length > 20 || retryScheduleMs.some((ms) => ms === undefined || ms < 10 || ms > 7 * 86_400_000)) {
    throw new Error(`WEBHOOK_RETRY_SCHEDULE must be up to 20 durations from 10ms to 7d separated by commas (e.g. ${DEFAULT_RETRY_SCHEDULE}), got "${rawSchedule}"`);
  }
  const deliveryInApiRaw = value(env, 'WEBHOOK_DELIVERY_IN_API')?.toLowerCase();
  if (deliveryInApiRaw !== undefined && !['true', 'false', '1', '0'].includes(deliveryInApiRaw)) throw new Error('WEBHOOK_DELIVERY_IN_API must be true or false');
  const timeoutMs = duration(env, 'WEBHOOK_TIMEOUT', 10_000, 100, 60_000);
  const leaseMs = duration(env, 'WEBHOOK_LEASE', 60_000, 1_000, 3_600_000);
  if (leaseMs <= timeoutMs) throw new Error('WEBHOOK_LEASE must be longer than WEBHOOK_TIMEOUT (an attempt must end before its claim lapses)');
  return {
    deliveryInApi: deliveryInApiRaw === 'true' || deliveryInApiRaw === '1',
    retryScheduleMs: retryScheduleMs as number[],
    disableAfterMs: duration(env, 'WEBHOOK_DISABLE_AFTER', 3 * 86_400_000, 100, 90 * 86_400_000),
    concurrencyPerEndpoint: whole(env, 'WEBHOOK_CONCURRENCY_PER_ENDPOINT', 4, 1, 64),
    timeoutMs,
    rotationOverlapMs: duration(env, 'WEBHOOK_ROTATION_OVERLAP', 86_400_000, 100, 30 * 86_400_000),
    leaseMs,
    pollMs: duration(env, 'WEBHOOK_POLL', 500, 20, 60_000),
    batch: whole(env, 'WEBHOOK_BATCH', 32, 1, 500),
  };
}
