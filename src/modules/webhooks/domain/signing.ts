import { Webhook } from 'standardwebhooks';

/** The secrets that sign a delivery now: the current one, and the previous one while its overlap lasts. */
export interface SigningSecrets {
  current: string;
  previous: string | null;
  previousExpiresAt: Date | null;
}

/** The secrets to sign with at `now`, newest first. */
export function activeSecrets(secrets: SigningSecrets, now: Date): string[] {
  const overlap = secrets.previous !== null && secrets.previousExpiresAt !== null && secrets.previousExpiresAt.getTime() > now.getTime();
  return overlap ? [secrets.current, secrets.previous as string] : [secrets.current];
}

/**
 * The `webhook-signature` header (Standard Webhooks): `v1,<base64 HMAC-SHA256 of id.timestamp.body>`
 * for each secret, space-separated, newest first.
 */
export function signatureHeader(secrets: readonly string[], id: string, at: Date, body: string): string {
  return secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' ');
}

/** The headers of one attempt; `webhook-timestamp` is this attempt's time, `webhook-id` the event's (the same on every retry). */
export function deliveryHeaders(secrets: readonly string[], eventId: string, at: Date, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'PersonaStudio-Webhooks/1',
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, eventId, at, body),
  };
}
