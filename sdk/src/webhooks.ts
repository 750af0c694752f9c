import { Webhook, WebhookVerificationError as LibraryVerificationError } from 'standardwebhooks';
import type { components } from './generated/schema.js';

type Schemas = components['schemas'];

/**
 * Each event type a webhook endpoint can receive and its `data`: the REST resource as it read when
 * the event was sent, or, when the resource is gone by then, the facts the event recorded
 * (docs/events.md).
 */
export interface WebhookEventData {
  'job.completed': Schemas['JobDoc'] | { job_id: string; job_type: string };
  'job.failed': Schemas['JobDoc'] | { job_id: string; job_type: string };
  'content.ready': Schemas['ContentItemDoc'] | { content_id: string; character_id: string };
  'content.approved': Schemas['ContentItemDoc'] | { content_id: string; character_id: string };
  'post.published': Schemas['ScheduledPostBody'] | { post_id: string; platform: string };
  'post.failed': Schemas['ScheduledPostBody'] | { post_id: string; platform: string };
  'lora.ready': Schemas['LoraDoc'] | { character_id: string };
  'lora.failed': Schemas['LoraDoc'] | { character_id: string };
  'voice.ready': Schemas['VoiceDoc'] | { character_id: string };
  'credits.low': Schemas['CreditsLowBody'];
  'member.added': Schemas['MemberView'] | { user_id: string; role: string };
  'member.removed': Schemas['MemberView'] | Record<string, unknown>;
  /** `POST /webhooks/endpoints/{id}/test`, to that endpoint only. */
  'webhook.test': { endpoint_id: string };
}

export type WebhookEventType = keyof WebhookEventData;

/** One delivery's body: `webhook-id` is its `id`, the same on every retry (deduplicate on it). */
export type WebhookEvent = {
  [T in WebhookEventType]: { id: string; type: T; created_at: string; workspace_id: string; data: WebhookEventData[T] };
}[WebhookEventType];

/** A delivery that is not provably ours and fresh: no or a wrong signature, a timestamp over 5 minutes off, missing headers. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/** Request headers as Node (`req.headers`), fetch (`Headers`) or a plain object hold them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const SIGNED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function signedHeaders(headers: WebhookHeaders): Record<string, string> {
  const read = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
    const value = key === undefined ? undefined : headers[key];
    return Array.isArray(value) ? value.join(' ') : value;
  };
  const out: Record<string, string> = {};
  for (const name of SIGNED_HEADERS) {
    const value = read(name);
    if (value === undefined) throw new WebhookVerificationError(`Missing the ${name} header.`);
    out[name] = value;
  }
  return out;
}

/**
 * Verifies a delivery (Standard Webhooks, HMAC-SHA256) against the endpoint's `whsec_` secret, or
 * any of several (hold the old and the new one while rotating), and answers its event. Pass the
 * body exactly as received (raw bytes or text): a re-serialised body no longer matches its signature.
 */
export function verifyWebhook(secrets: string | readonly string[], body: string | Buffer, headers: WebhookHeaders): WebhookEvent {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new WebhookVerificationError('No secret to verify with.');
  const signed = signedHeaders(headers);
  let last: unknown;
  for (const secret of list) {
    try {
      return new Webhook(secret).verify(body, signed) as WebhookEvent;
    } catch (err) {
      // A bad secret string is the caller's mistake, not the sender's: say so.
      if (!(err instanceof LibraryVerificationError)) throw err;
      last = err;
    }
  }
  throw new WebhookVerificationError(last instanceof Error ? last.message : 'No matching signature found');
}
