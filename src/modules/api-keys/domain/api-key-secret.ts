import { hash, randomBytes } from 'node:crypto';
import { API_KEY_PREFIX } from '../../../core/index.js';

/** Random bytes behind every key: 256 bits, so a plain SHA-256 digest is safe to store. */
const SECRET_BYTES = 32;
/** Characters of the secret kept for display: `psk_` plus 8 more, enough to tell keys apart. */
export const DISPLAY_PREFIX_LENGTH = 12;
const KEY_SHAPE = new RegExp(`^${API_KEY_PREFIX}[A-Za-z0-9_-]{43}$`);

export interface IssuedSecret {
  /** The whole key, shown to its creator once and never stored. */
  secret: string;
  /** What is stored and looked up. */
  hash: string;
  /** What lists show so people can recognise a key. */
  prefix: string;
}

export function issueApiKeySecret(): IssuedSecret {
  const secret = `${API_KEY_PREFIX}${randomBytes(SECRET_BYTES).toString('base64url')}`;
  return { secret, hash: hashApiKey(secret), prefix: displayPrefix(secret) };
}

/**
 * SHA-256, not a slow password hash: the secret is 256 random bits, so nothing can be guessed, and
 * the lookup sits on every public API request. Not keyed with a server secret, so rotating
 * TOKEN_ENCRYPTION_KEY never invalidates customers' keys.
 */
export function hashApiKey(secret: string): string {
  // The one-shot digest: a third of createHash's cost, on every public API request.
  return hash('sha256', secret, 'hex');
}

export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** True for a string shaped like a key we issue; anything else is refused without a lookup. */
export function looksLikeApiKey(token: string): boolean {
  return KEY_SHAPE.test(token);
}
