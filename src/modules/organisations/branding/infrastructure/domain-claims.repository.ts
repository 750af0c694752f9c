import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { changedRows, type Tx } from '../../../../platform/database/index.js';
import type { CheckOutcome, DomainClaim, DomainFailure, DomainStatus } from '../domain/domain-claim.js';

interface ClaimRow {
  workspace_id: string;
  domain: string;
  skeleton: string;
  token: string;
  status: DomainStatus;
  failure: DomainFailure | null;
  last_outcome: CheckOutcome | null;
  checks: number;
  misses: number;
  created_at: Date;
  verified_at: Date | null;
  last_checked_at: Date | null;
  next_check_at: Date | null;
}

const COLUMNS = 'workspace_id, domain, skeleton, token, status, failure, last_outcome, checks, misses, created_at, verified_at, last_checked_at, next_check_at';

function toClaim(r: ClaimRow): DomainClaim {
  return {
    workspaceId: r.workspace_id, domain: r.domain, skeleton: r.skeleton, token: r.token, status: r.status, failure: r.failure,
    lastOutcome: r.last_outcome, checks: r.checks, misses: r.misses, createdAt: r.created_at, verifiedAt: r.verified_at,
    lastCheckedAt: r.last_checked_at, nextCheckAt: r.next_check_at,
  };
}

/** The unique indexes a second verified claim of one domain, or of a look-alike, runs into. */
export const VERIFIED_INDEXES = ['custom_domain_verified_uq', 'custom_domain_verified_skeleton_uq'];

/** A verified claim of another workspace on the same domain or a look-alike of it. */
export interface VerifiedRival {
  workspaceId: string;
  domain: string;
}

/** A claim due for its periodic check, as the scheduler hands it to a job. */
export interface DueClaim {
  workspaceId: string;
  token: string;
}

/** `custom_domain_claims`: at most one claim per workspace. */
@Injectable()
export class DomainClaimsRepository {
  async find(m: EntityManager, workspaceId: string): Promise<DomainClaim | null> {
    const rows: ClaimRow[] = await m.query(`SELECT ${COLUMNS} FROM custom_domain_claims WHERE workspace_id = $1`, [workspaceId]);
    return rows[0] ? toClaim(rows[0]) : null;
  }

  /** The workspace's claim, locked for the rest of `tx`: a check and a change of domain apply one after the other. */
  async lock(tx: Tx, workspaceId: string): Promise<DomainClaim | null> {
    const rows: ClaimRow[] = await tx.query(`SELECT ${COLUMNS} FROM custom_domain_claims WHERE workspace_id = $1 FOR UPDATE`, [workspaceId]);
    return rows[0] ? toClaim(rows[0]) : null;
  }

  /** Writes the claim whole, replacing the workspace's previous one (a new domain is a new claim). */
  async save(tx: Tx, c: DomainClaim): Promise<void> {
    await tx.query(
      `INSERT INTO custom_domain_claims (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (workspace_id) DO UPDATE SET domain = $2, skeleton = $3, token = $4, status = $5, failure = $6, last_outcome = $7,
         checks = $8, misses = $9, created_at = $10, verified_at = $11, last_checked_at = $12, next_check_at = $13`,
      [c.workspaceId, c.domain, c.skeleton, c.token, c.status, c.failure, c.lastOutcome, c.checks, c.misses, c.createdAt, c.verifiedAt, c.lastCheckedAt, c.nextCheckAt],
    );
  }

  async remove(tx: Tx, workspaceId: string): Promise<void> {
    await tx.query(`DELETE FROM custom_domain_claims WHERE workspace_id = $1`, [workspaceId]);
  }

  /** Another workspace's verified claim on `domain` itself or on a domain of the same skeleton. */
  async verifiedRival(m: EntityManager, workspaceId: string, domain: string, skeleton: string): Promise<VerifiedRival | null> {
    const rows: Array<{ workspace_id: string; domain: string }> = await m.query(
      `SELECT workspace_id, domain FROM custom_domain_claims
        WHERE status = 'verified' AND workspace_id <> $1 AND (domain = $2 OR skeleton = $3)
        ORDER BY (domain = $2) DESC LIMIT 1`,
      [workspaceId, domain, skeleton],
    );
    return rows[0] ? { workspaceId: rows[0].workspace_id, domain: rows[0].domain } : null;
  }

  /**
   * The pending claims of other workspaces that lost to `winner`: on the same domain
   * (`claimed_elsewhere`) or a look-alike (`confusable`). They fail and are no longer checked.
   */
  async failRivals(tx: Tx, winner: DomainClaim): Promise<number> {
    const rows = await changedRows<{ workspace_id: string }>(
      tx,
      `UPDATE custom_domain_claims
          SET status = 'failed', failure = CASE WHEN domain = $2 THEN 'claimed_elsewhere' ELSE 'confusable' END, next_check_at = NULL
        WHERE status = 'pending' AND workspace_id <> $1 AND (domain = $2 OR skeleton = $3)
        RETURNING workspace_id`,
      [winner.workspaceId, winner.domain, winner.skeleton],
    );
    return rows.length;
  }

  /**
   * Claims up to `limit` due checks by moving their `next_check_at` to `leaseUntil` (the check
   * sets the real next time). Locked rows are skipped and the outer WHERE re-checks, so of several
   * processes claiming at once each due claim goes to one.
   */
  async claimDue(tx: Tx, now: Date, leaseUntil: Date, limit: number): Promise<DueClaim[]> {
    const rows = await changedRows<{ workspace_id: string; token: string }>(
      tx,
      `UPDATE custom_domain_claims c SET next_check_at = $2
        WHERE c.workspace_id IN (SELECT d.workspace_id FROM custom_domain_claims d
                                  WHERE d.next_check_at <= $1 ORDER BY d.next_check_at LIMIT $3 FOR UPDATE SKIP LOCKED)
          AND c.next_check_at <= $1
        RETURNING c.workspace_id, c.token`,
      [now, leaseUntil, limit],
    );
    return rows.map((r) => ({ workspaceId: r.workspace_id, token: r.token }));
  }
}
