import { isStorageKey, MEDIA_PATH } from './storage-keys.js';
import type { Storage } from './storage.types.js';

/**
 * How long a media URL handed to a platform for publishing lives: Instagram, TikTok and Pinterest
 * fetch by URL, sometimes hours after the call (TikTok's pull, Instagram's container processing),
 * so a day, well past PUBLISH_POLL_TIMEOUT_MS and any retry.
 */
export const PUBLISH_MEDIA_URL_TTL_SECONDS = 24 * 3600;

/**
 * Expiries are rounded up to this step, so reads within a few minutes answer the same URL and a
 * browser's cache of it stays useful; a URL then lives between its life and its life plus the step.
 */
const EXPIRY_STEP_SECONDS = 300;

/** Signed URLs kept for reuse per process (a few MB at most). */
const SIGNED_URLS_REMEMBERED = 20_000;

/**
 * Fresh signed URLs for stored media, made when an answer is built: records keep storage keys (and
 * plain, unsigned URLs that serve nothing), never a signed URL. `keyOf` reads the key back out of
 * any URL of ours, signed or plain, so a client can send back what it was given.
 */
export class MediaUrls {
  private readonly prefixes: string[];
  /**
   * URLs already signed, by key and rounded expiry: within a step every answer names the same URL,
   * so each is signed once per step rather than once per answer. Forgotten whole when full.
   */
  private readonly signed = new Map<string, string>();

  constructor(
    private readonly storage: Storage,
    /** Life of a URL in an API answer. */
    readonly ttlSeconds: number,
    /** Starts of our own media URLs besides the storage's `urlFor` (the media route, a store's address). */
    prefixes: string[],
    private readonly nowMs: () => number = Date.now,
  ) {
    this.prefixes = [...new Set(prefixes.map((p) => p.replace(/\/+$/, '')))];
  }

  /** A URL that serves `key` for `ttlSeconds` (the answer default) from now, and at most a few minutes more. */
  sign(key: string, ttlSeconds: number = this.ttlSeconds): string {
    const now = Math.floor(this.nowMs() / 1000);
    const step = Math.min(EXPIRY_STEP_SECONDS, Math.floor(ttlSeconds / 4)) || 1;
    const expiresAt = Math.ceil((now + ttlSeconds) / step) * step;
    const memo = `${expiresAt} ${key}`;
    let url = this.signed.get(memo);
    if (url === undefined) {
      url = this.storage.signedUrl(key, expiresAt);
      if (this.signed.size >= SIGNED_URLS_REMEMBERED) this.signed.clear();
      this.signed.set(memo, url);
    }
    return url;
  }

  signOrNull(key: string | null | undefined): string | null {
    return key ? this.sign(key) : null;
  }

  /** The storage key a URL of ours names (query ignored), or null for anything else. */
  keyOf(url: string): string | null {
    const bare = url.split(/[?#]/, 1)[0];
    for (const prefix of this.prefixes) {
      if (!bare.startsWith(`${prefix}/`)) continue;
      const key = bare.slice(prefix.length + 1);
      return isStorageKey(key) ? key : null;
    }
    return null;
  }

  /**
   * A URL kept in a record, as a client should see it: ours and under `ownedPrefix` (the owner's
   * folder, e.g. `characters/char_…/`) → freshly signed; anything else unchanged. The prefix is
   * what stops a client from minting a signed URL for another workspace's file by listing its
   * plain URL among its own.
   */
  signKept(url: string, ownedPrefixes: readonly string[]): string {
    const key = this.keyOf(url);
    return key && ownedPrefixes.some((p) => key.startsWith(p)) ? this.sign(key) : url;
  }

  /** A URL a client sent, as a record keeps it: ours (signed or not) → its plain form; anything else unchanged. */
  plain(url: string): string {
    const key = this.keyOf(url);
    return key ? this.storage.urlFor(key) : url;
  }
}

/** The plain media-route prefix of a public URL. */
export function mediaRoutePrefix(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${MEDIA_PATH}`;
}
