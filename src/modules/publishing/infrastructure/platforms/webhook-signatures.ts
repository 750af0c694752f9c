import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The platforms' webhook signatures, checked on the raw body exactly as received (re-serialised
 * JSON would not match). Every comparison is constant-time over the digests' bytes; a header that
 * is missing, malformed or of another length is simply not valid.
 */

/** Instagram (Meta) webhooks: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret, raw body)>`. */
export const INSTAGRAM_SIGNATURE_HEADER = 'x-hub-signature-256';
/** X Account Activity API: `x-twitter-webhooks-signature: sha256=<base64 HMAC-SHA256(consumer secret, raw body)>`. */
export const X_SIGNATURE_HEADER = 'x-twitter-webhooks-signature';

function hmac(secret: string, payload: Buffer | string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

/** Whether `expected` and the bytes `given` names are the same, in constant time once the lengths match. */
function sameDigest(expected: Buffer, given: Buffer | null): boolean {
  return given !== null && given.length === expected.length && timingSafeEqual(expected, given);
}

/** The digest of a `sha256=<...>` header value, or null when it is not one. */
function digestOf(header: string | string[] | undefined, encoding: 'hex' | 'base64'): Buffer | null {
  const value = Array.isArray(header) ? header[0] : header;
  const match = /^sha256=(.+)$/.exec(value?.trim() ?? '');
  if (!match) return null;
  const pattern = encoding === 'hex' ? /^[0-9a-fA-F]{64}$/ : /^[A-Za-z0-9+/]{43}=$/;
  return pattern.test(match[1]) ? Buffer.from(match[1], encoding) : null;
}

/** Whether an Instagram delivery's `X-Hub-Signature-256` signs `rawBody` with the app secret. */
export function verifyInstagramSignature(appSecret: string, rawBody: Buffer | string, header: string | string[] | undefined): boolean {
  if (!appSecret) return false;
  return sameDigest(hmac(appSecret, rawBody), digestOf(header, 'hex'));
}

/** Whether an X delivery's `x-twitter-webhooks-signature` signs `rawBody` with the consumer secret. */
export function verifyXSignature(consumerSecret: string, rawBody: Buffer | string, header: string | string[] | undefined): boolean {
  if (!consumerSecret) return false;
  return sameDigest(hmac(consumerSecret, rawBody), digestOf(header, 'base64'));
}

/**
 * The answer to X's challenge-response check (`GET ?crc_token=…`, at registration and hourly):
 * `{response_token: 'sha256=' + base64(HMAC-SHA256(consumer secret, crc_token))}`.
 */
export function xCrcResponse(consumerSecret: string, crcToken: string): { response_token: string } {
  return { response_token: `sha256=${hmac(consumerSecret, crcToken).toString('base64')}` };
}

/**
 * Meta's subscription check (`GET ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`): the
 * challenge to echo when the mode is `subscribe` and the verify token is ours (compared in
 * constant time), else null (answer 403).
 */
export function instagramChallenge(verifyToken: string, query: { 'hub.mode'?: unknown; 'hub.verify_token'?: unknown; 'hub.challenge'?: unknown }): string | null {
  const given = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (!verifyToken || query['hub.mode'] !== 'subscribe' || typeof given !== 'string' || typeof challenge !== 'string') return null;
  return sameDigest(hmac('verify', verifyToken), hmac('verify', given)) ? challenge : null;
}
