import { createHmac, timingSafeEqual } from 'node:crypto';
import { isStorageKey, MEDIA_PATH } from './storage-keys.js';

/** The query parameters a signed media URL carries. */
export const EXPIRES_PARAM = 'expires';
export const SIGNATURE_PARAM = 'signature';

const EXPIRES_SHAPE = /^[1-9][0-9]{0,11}$/;
const SIGNATURE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A verified media request: the key it names and how many seconds its URL still lives. */
export interface VerifiedMedia {
  key: string;
  remainingSeconds: number;
}

/**
 * Signs and checks media URLs of our own media route: an HMAC-SHA256 over the route path of the key
 * and the expiry (unix seconds), so neither can be changed without the signing key. The key shape
 * is checked before anything else, so a traversal never reaches a signature check, let alone a file.
 */
export class MediaSigner {
  constructor(private readonly secret: string) {}

  signature(key: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`GET\n${MEDIA_PATH}/${key}\n${expires}`, 'utf8').digest('base64url');
  }

  /** The query string of a signed URL for `key`, valid until `expires` (unix seconds). */
  query(key: string, expires: number): string {
    return `${EXPIRES_PARAM}=${expires}&${SIGNATURE_PARAM}=${this.signature(key, expires)}`;
  }

  /** The key and remaining life when every part is well-formed, the signature matches and it has not expired; else null. */
  verify(key: unknown, expires: unknown, signature: unknown, nowSeconds: number): VerifiedMedia | null {
    if (!isStorageKey(key) || typeof expires !== 'string' || typeof signature !== 'string') return null;
    if (!EXPIRES_SHAPE.test(expires) || !SIGNATURE_SHAPE.test(signature)) return null;
    const expiresAt = Number(expires);
    const expected = Buffer.from(this.signature(key, expiresAt), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    if (expiresAt <= nowSeconds) return null;
    return { key, remainingSeconds: expiresAt - nowSeconds };
  }
}
