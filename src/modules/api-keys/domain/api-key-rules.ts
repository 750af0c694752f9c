import { SCOPES } from '../../../core/index.js';

/** How stale `last_used_at` may get before a request refreshes it: one write per key per minute at most. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Why a scope list is unacceptable, or null when it is a non-empty list of distinct known scopes. */
export function scopeListProblem(value: unknown): string | null {
  if (!Array.isArray(value)) return 'scopes must be a list of scopes';
  if (value.length === 0) return 'scopes must name at least one scope';
  const unknown = value.filter((s) => typeof s !== 'string' || !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) return `scopes must each be one of ${SCOPES.join(', ')}`;
  if (new Set(value).size !== value.length) return 'scopes must not repeat a scope';
  return null;
}

/** Why an expiry is unacceptable, or null when it is a parseable moment after `now`. */
export function expiryProblem(value: unknown, now: Date): string | null {
  if (typeof value !== 'string') return 'expires_at must be an ISO 8601 timestamp';
  const at = Date.parse(value);
  if (Number.isNaN(at)) return 'expires_at must be an ISO 8601 timestamp';
  if (at <= now.getTime()) return 'expires_at must be in the future';
  return null;
}

/** True when a key used at `now` should have its `last_used_at` written again. */
export function needsUsageTouch(lastUsedAt: Date | null, now: Date): boolean {
  return lastUsedAt === null || now.getTime() - lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS;
}
