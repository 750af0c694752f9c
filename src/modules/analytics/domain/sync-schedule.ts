/** When a connection's next sync is due, and when a workspace may ask for one again. */

/** An on-demand sync per workspace at most this often (contract §15). */
export const ON_DEMAND_SYNC_GAP_MS = 10 * 60_000;

/** A sync state row as the scheduler reads it. */
export interface SyncSlot {
  nextDueAt: Date;
  blockedUntil: Date | null;
}

/** Due when its time has come and no platform rate limit still blocks it. The claim's WHERE is this rule. */
export function isDue(slot: SyncSlot, now: Date): boolean {
  return slot.nextDueAt <= now && (slot.blockedUntil === null || slot.blockedUntil <= now);
}

/**
 * Where a claim moves `next_due_at`: one period on. Moving it is the claim itself: of several
 * schedulers reading the same due row, one conditional UPDATE wins and the others find it not due.
 */
export function nextDueAfterClaim(now: Date, intervalMs: number): Date {
  return new Date(now.getTime() + intervalMs);
}

/**
 * After the platform answered 429: blocked until its Retry-After (at least a minute, never past
 * one period), and the sync is due again right then rather than a whole period later.
 */
export function blockedAfterRateLimit(now: Date, retryAfterMs: number | undefined, intervalMs: number): Date {
  const wait = Math.min(Math.max(retryAfterMs ?? 60_000, 60_000), intervalMs);
  return new Date(now.getTime() + wait);
}

/** Seconds until a workspace may ask for a sync again; 0 when it may now. */
export function onDemandRetryAfterSeconds(lastRequestedAt: Date | null, now: Date): number {
  if (!lastRequestedAt) return 0;
  const left = lastRequestedAt.getTime() + ON_DEMAND_SYNC_GAP_MS - now.getTime();
  return left > 0 ? Math.ceil(left / 1000) : 0;
}
