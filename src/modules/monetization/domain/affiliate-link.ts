import { randomBytes } from 'node:crypto';
import type { PlatformName } from '../../../core/index.js';

/** An affiliate link of a character: a short public address that redirects to `destinationUrl`. */
export interface AffiliateLink {
  id: string;
  workspaceId: string;
  characterId: string;
  platform: PlatformName | null;
  destinationUrl: string;
  shortcode: string;
  clickCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A link as answered: with the revenue entries that name it, summed (minor units). */
export interface LinkWithRevenue extends AffiliateLink {
  revenue: number;
}

export const MAX_DESTINATION_LENGTH = 2048;
export const SHORTCODE_MIN = 3;
export const SHORTCODE_MAX = 32;
export const SHORTCODE_PATTERN = /^[A-Za-z0-9_-]{3,32}$/;
export const GENERATED_SHORTCODE_LENGTH = 8;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Whether a client-chosen shortcode is acceptable: 3-32 letters, digits, `_` or `-`. */
export function isShortcode(value: string): boolean {
  return SHORTCODE_PATTERN.test(value);
}

/**
 * A random shortcode of 8 base-62 characters (47.6 bits): a clash with an existing one is
 * unlikely enough that the caller simply draws again. Bytes of 248 and over are dropped so
 * every character is equally likely.
 */
export function generateShortcode(length = GENERATED_SHORTCODE_LENGTH, random: (n: number) => Uint8Array = randomBytes): string {
  let out = '';
  while (out.length < length) {
    for (const b of random(length * 2)) {
      if (b >= 248) continue;
      out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * Why `raw` cannot be a link's destination, or null when it can: an absolute http(s) URL with a
 * host, no credentials, at most 2048 characters, and not one of our own hosts (a link to
 * ourselves could loop through the redirect or borrow our domain's standing). `javascript:` and
 * `data:` fail the scheme rule.
 */
export function destinationProblem(raw: string, ownHosts: readonly string[]): string | null {
  if (raw.length === 0) return 'destination_url must not be empty';
  if (raw.length > MAX_DESTINATION_LENGTH) return `destination_url must be at most ${MAX_DESTINATION_LENGTH} characters`;
  if ([...raw].some((ch) => /\s/.test(ch) || ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) return 'destination_url must not contain spaces or control characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'destination_url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `destination_url must use http or https, not ${url.protocol.replace(/:$/, '')}`;
  if (url.hostname === '') return 'destination_url must name a host';
  if (url.username !== '' || url.password !== '') return 'destination_url must not carry credentials';
  const host = normalHost(url.hostname);
  if (ownHosts.some((own) => normalHost(own) === host)) return 'destination_url must not point at this service';
  return null;
}

/** Host names compared without case or a trailing dot (`Example.COM.` is `example.com`). */
function normalHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}
