/**
 * A workspace's claim on a custom domain and how each DNS check moves it. `pending` until the TXT
 * proof is seen; `verified` while it keeps being seen (branding is served only then); `failed`
 * when it never came in time, went missing for several checks in a row, or another workspace
 * proved the same domain (or a look-alike) first.
 */
export const DOMAIN_STATUSES = ['pending', 'verified', 'failed'] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

/** Why a claim failed, as the API shows it. */
export const DOMAIN_FAILURES = ['not_verified_in_time', 'record_missing', 'claimed_elsewhere', 'confusable'] as const;
export type DomainFailure = (typeof DOMAIN_FAILURES)[number];

/** What the last DNS check saw: the proof, no record, records without the proof, or no answer at all. */
export const CHECK_OUTCOMES = ['found', 'absent', 'mismatch', 'unavailable'] as const;
export type CheckOutcome = (typeof CHECK_OUTCOMES)[number];

export interface DomainClaim {
  workspaceId: string;
  /** A-label form, lowercase. */
  domain: string;
  skeleton: string;
  token: string;
  status: DomainStatus;
  failure: DomainFailure | null;
  lastOutcome: CheckOutcome | null;
  /** Checks since the claim was made (pending) or since the proof was last seen (verified). */
  checks: number;
  /** Consecutive checks of a verified claim that did not see the proof. */
  misses: number;
  createdAt: Date;
  verifiedAt: Date | null;
  lastCheckedAt: Date | null;
  /** When the scheduler checks it next; null: never again on its own (a failed claim). */
  nextCheckAt: Date | null;
}

export interface CheckPolicy {
  /** The first re-check of a pending claim comes this long after it was made; the gap doubles each time. */
  pendingCheckMs: number;
  /** How often a verified claim is re-checked; also the longest gap between pending checks. */
  verifiedCheckMs: number;
  /** A pending claim not proven this long after it was made fails. */
  pendingTtlMs: number;
  /** A verified claim whose proof is missing this many checks in a row fails. */
  missesBeforeFailed: number;
}

/** A new claim: pending, first checked one pending interval from now (time to publish the record). */
export function newClaim(workspaceId: string, domain: string, skeleton: string, token: string, now: Date, policy: CheckPolicy): DomainClaim {
  return {
    workspaceId, domain, skeleton, token, status: 'pending', failure: null, lastOutcome: null, checks: 0, misses: 0,
    createdAt: now, verifiedAt: null, lastCheckedAt: null, nextCheckAt: new Date(now.getTime() + policy.pendingCheckMs),
  };
}

/** The gap before check number `checks + 1`: the pending interval doubled per check, capped at the verified one. */
export function backoffMs(checks: number, policy: CheckPolicy): number {
  return Math.min(policy.pendingCheckMs * 2 ** Math.min(checks, 30), policy.verifiedCheckMs);
}

const after = (now: Date, ms: number): Date => new Date(now.getTime() + ms);

/**
 * The claim after one DNS check. Whether a `found` may become `verified` (no other workspace holds
 * the domain or a look-alike) is the caller's to decide afterwards, with `lose`. A resolver that did
 * not answer changes nothing but the time of the next check: an outage is not a missing record.
 */
export function afterCheck(claim: DomainClaim, outcome: CheckOutcome, now: Date, policy: CheckPolicy): DomainClaim {
  const checked = { ...claim, lastOutcome: outcome, lastCheckedAt: now, checks: claim.checks + 1 };
  if (outcome === 'unavailable') {
    return { ...checked, nextCheckAt: claim.status === 'failed' ? claim.nextCheckAt : after(now, backoffMs(claim.status === 'verified' ? 0 : claim.checks, policy)) };
  }
  if (outcome === 'found') {
    const verifiedAt = claim.status === 'verified' ? claim.verifiedAt : now;
    return { ...checked, status: 'verified', failure: null, misses: 0, verifiedAt, nextCheckAt: after(now, policy.verifiedCheckMs) };
  }
  if (claim.status === 'verified') {
    const misses = claim.misses + 1;
    if (misses >= policy.missesBeforeFailed) return { ...lose(checked, 'record_missing'), misses };
    return { ...checked, misses, nextCheckAt: after(now, backoffMs(misses - 1, policy)) };
  }
  if (claim.status === 'pending' && now.getTime() - claim.createdAt.getTime() >= policy.pendingTtlMs) return lose(checked, 'not_verified_in_time');
  if (claim.status === 'failed') return checked;
  return { ...checked, nextCheckAt: after(now, backoffMs(claim.checks, policy)) };
}

/** The claim failed for `why`: it is not served and not checked again unless its owner asks. */
export function lose(claim: DomainClaim, why: DomainFailure): DomainClaim {
  return { ...claim, status: 'failed', failure: why, verifiedAt: null, nextCheckAt: null };
}
