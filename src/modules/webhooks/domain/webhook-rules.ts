import { randomBytes } from 'node:crypto';
import { WEBHOOK_EVENT_TYPES } from '../../../core/index.js';

/** Endpoints a workspace may have. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 10;
/** The answer kept of each attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024;
export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;
/** The event type of the deliveries `POST …/test` makes (no endpoint subscribes to it). */
export const TEST_EVENT_TYPE = 'webhook.test';
export const ALL_EVENTS = '*';

export type DeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'failed';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivering', 'delivered', 'failed'];
/** `gone`: the receiver answered 410; `failing`: every attempt failed for the disable period; `manual`: turned off by PATCH. */
export type DisabledReason = 'gone' | 'failing' | 'manual';

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Why `types` is not a valid subscription, or null: a non-empty list of known types without repeats, or exactly `['*']`. */
export function eventTypesProblem(types: unknown): string | null {
  if (!Array.isArray(types) || types.length === 0) return 'event_types must be a non-empty list of event types, or ["*"]';
  if (types.some((t) => typeof t !== 'string')) return 'event_types must contain strings';
  if (types.includes(ALL_EVENTS)) return types.length === 1 ? null : 'event_types: "*" stands alone (it already means every type)';
  const unknown = (types as string[]).filter((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) return `event_types: unknown event type ${unknown.map((t) => `"${t.slice(0, 60)}"`).join(', ')}; known: ${WEBHOOK_EVENT_TYPES.join(', ')}`;
  if (new Set(types).size !== types.length) return 'event_types must not repeat a type';
  return null;
}

/** Whether an endpoint subscribed to `subscribed` receives events of `type`. */
export function subscribes(subscribed: readonly string[], type: string): boolean {
  return subscribed.includes(ALL_EVENTS) || subscribed.includes(type);
}

/**
 * Why an endpoint URL is refused before any address is looked at, or null: an absolute http(s)
 * URL (https only in production), no credentials, no fragment, a host. The address rules (no
 * private, link-local or metadata address) are checked beside it, on the resolved name.
 */
export function endpointUrlProblem(raw: unknown, production: boolean): string | null {
  if (typeof raw !== 'string' || raw.length === 0) return 'url must be an absolute URL';
  if (raw.length > MAX_URL_LENGTH) return `url must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'url must use https';
  if (production && url.protocol !== 'https:') return 'url must use https';
  if (url.username !== '' || url.password !== '') return 'url must not carry credentials';
  if (url.hash !== '') return 'url must not have a fragment';
  if (url.hostname === '') return 'url must name a host';
  return null;
}

/** What an attempt's answer means: 2xx delivered, 410 the receiver is gone for good, anything else (3xx included) a failure to retry. */
export type AttemptVerdict = 'delivered' | 'gone' | 'retry';

export function verdictOf(status: number | null): AttemptVerdict {
  if (status === null) return 'retry';
  if (status >= 200 && status <= 299) return 'delivered';
  if (status === 410) return 'gone';
  return 'retry';
}

/**
 * The wait before the next attempt after `attempts` attempts (the first is attempt 1), or null when
 * the schedule is spent and the delivery fails: the schedule's entry ± 20 % (`jitter` in [0, 1)).
 */
export function retryDelayMs(schedule: readonly number[], attempts: number, jitter: number): number | null {
  if (attempts < 1 || attempts > schedule.length) return null;
  const base = schedule[attempts - 1];
  const j = Math.min(Math.max(jitter, 0), 0.999999);
  return Math.max(1, Math.round(base * (0.8 + 0.4 * j)));
}

/** Whether an endpoint failing since `failingSince` is disabled now (`failing`). */
export function failingTooLong(failingSince: Date | null, now: Date, disableAfterMs: number): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= disableAfterMs;
}

/** The JSON a receiver gets for an event: its id, type, time, workspace and the resource's body. */
export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  workspace_id: string;
  data: Record<string, unknown>;
}

export function envelope(event: { id: string; type: string; occurredAt: Date; workspaceId: string }, data: Record<string, unknown>): EventEnvelope {
  return { id: event.id, type: event.type, created_at: event.occurredAt.toISOString(), workspace_id: event.workspaceId, data };
}

/** A payload as a wire body when no renderer knows its type: the same facts, snake_cased keys (deeply). */
export function snakeCased(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCased);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeCased(v)]));
}

/** What to do with a delivery after an attempt, and the endpoint's fate. */
export type Settlement =
  | { delivery: 'delivered'; endpoint: 'succeeded' }
  | { delivery: 'failed'; endpoint: 'gone' }
  | { delivery: 'retry'; delayMs: number; endpoint: 'failed' }
  | { delivery: 'failed'; endpoint: 'failed' };

/**
 * Settles attempt number `attempts` (counting it) that answered `status` (null: no answer): 2xx
 * delivered; 410 fails it and disables the endpoint; anything else is retried on the schedule
 * (± 20 % jitter) until the schedule is spent, then the delivery fails.
 */
export function settleAttempt(status: number | null, attempts: number, schedule: readonly number[], jitter: number): Settlement {
  const verdict = verdictOf(status);
  if (verdict === 'delivered') return { delivery: 'delivered', endpoint: 'succeeded' };
  if (verdict === 'gone') return { delivery: 'failed', endpoint: 'gone' };
  const delayMs = retryDelayMs(schedule, attempts, jitter);
  return delayMs === null ? { delivery: 'failed', endpoint: 'failed' } : { delivery: 'retry', delayMs, endpoint: 'failed' };
}
