import { createHash } from 'node:crypto';
import { AppError } from '../../core/index.js';

/** The request header naming a retryable request, and the answer header marking a replay. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** How long a key and its answer are kept: at least a day of retries. */
export const KEY_TTL_SECONDS = 24 * 60 * 60;
/**
 * A claim still `in_progress` after this long belongs to a request that died with its process
 * (a crash between the claim and its answer); a retry may take it over instead of getting 409
 * for a whole day. Every idempotent route here finishes in seconds.
 */
export const STALE_CLAIM_SECONDS = 5 * 60;

const KEY_SHAPE = /^[\x20-\x7E]{1,255}$/;

/** 1 to 255 printable ASCII characters; anything else is refused with 400. */
export function assertValidKey(key: string): void {
  if (!KEY_SHAPE.test(key)) {
    throw new AppError('validation_failed', `${IDEMPOTENCY_HEADER} must be 1 to 255 printable ASCII characters.`, [
      { field: IDEMPOTENCY_HEADER, message: 'must be 1 to 255 printable ASCII characters' },
    ]);
  }
}

/** JSON with object keys sorted at every level, so the same body always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What makes two requests "the same": method, path with query, and body (no body is `{}`). */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(canonicalJson([method.toUpperCase(), path, body ?? {}])).digest('hex');
}

export interface StoredKey {
  requestHash: string;
  status: 'in_progress' | 'completed';
  responseStatus: number | null;
  responseBody: unknown;
}

export type ReplayDecision = { kind: 'replay'; status: number; body: unknown };

/**
 * What to answer when the key is already taken: another request under the same key is refused
 * (422), one still running makes the retry wait (409), a finished one is replayed.
 */
export function decideOnExisting(existing: StoredKey, hash: string): ReplayDecision {
  if (existing.requestHash !== hash) {
    throw new AppError('idempotency_key_reused', `This ${IDEMPOTENCY_HEADER} was used for a different request.`);
  }
  if (existing.status !== 'completed' || existing.responseStatus === null) {
    throw new AppError('idempotency_in_progress', `A request with this ${IDEMPOTENCY_HEADER} is still running; retry later.`);
  }
  return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody };
}
