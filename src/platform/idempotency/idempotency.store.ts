import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { decideOnExisting, KEY_TTL_SECONDS, STALE_CLAIM_SECONDS, type ReplayDecision, type StoredKey } from './idempotency-key.js';
import { outages } from '../health/outages.js';

export interface IdempotentRequest {
  workspaceId: string;
  key: string;
  method: string;
  path: string;
  hash: string;
}

/** A key this request holds; `token` tells its claim apart from a later one of the same key. */
export interface Claim {
  kind: 'claimed';
  workspaceId: string;
  key: string;
  token: string;
}

const SWEEP_EVERY_MS = 60_000;
const SWEEP_BATCH = 1000;

/**
 * Idempotency keys in PostgreSQL, shared by every API instance. Each statement runs on its own,
 * outside any transaction of the work: a claim is committed before the work starts, so a
 * concurrent duplicate sees it, and the work's transaction never waits on it.
 */
@Injectable()
export class IdempotencyStore {
  private readonly logger = new Logger('Idempotency');
  private lastSweep = 0;

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Takes the key for this request, or answers how an earlier request under it decides this one. */
  async claim(req: IdempotentRequest): Promise<Claim | ReplayDecision> {
    this.sweepSometimes();
    for (let attempt = 0; attempt < 3; attempt++) {
      const token = await this.insertOrTakeOver(req);
      if (token !== null) return { kind: 'claimed', workspaceId: req.workspaceId, key: req.key, token };
      const existing = await this.find(req.workspaceId, req.key);
      // Gone between the two statements (released or swept): try to take it again.
      if (existing) return decideOnExisting(existing, req.hash);
    }
    throw new Error('idempotency key kept changing under three attempts to claim it');
  }

  /** Stores the answer to replay. */
  async complete(claim: Claim, status: number, body: unknown): Promise<void> {
    await this.ds.query(
      `UPDATE idempotency_keys SET status = 'completed', response_status = $4, response_body = $5::json
       WHERE workspace_id = $1 AND key = $2 AND created_at::text = $3 AND status = 'in_progress'`,
      [claim.workspaceId, claim.key, claim.token, status, JSON.stringify(body ?? null)],
    );
  }

  /** Forgets a claim whose request failed, so a retry runs the work instead of replaying an error. */
  async release(claim: Claim): Promise<void> {
    await this.ds.query(
      `DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND created_at::text = $3 AND status = 'in_progress'`,
      [claim.workspaceId, claim.key, claim.token],
    );
  }

  /** Inserts an `in_progress` claim, or takes over an expired or abandoned one; null when the key is live. */
  private async insertOrTakeOver(req: IdempotentRequest): Promise<string | null> {
    const rows: Array<{ token: string }> = await this.ds.query(
      `INSERT INTO idempotency_keys (workspace_id, key, method, path, request_hash, status, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, 'in_progress', clock_timestamp(), clock_timestamp() + make_interval(secs => $6))
       ON CONFLICT (workspace_id, key) DO UPDATE SET
         method = EXCLUDED.method, path = EXCLUDED.path, request_hash = EXCLUDED.request_hash, status = 'in_progress',
         response_status = NULL, response_body = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
       WHERE idempotency_keys.expires_at <= clock_timestamp()
          OR (idempotency_keys.status = 'in_progress' AND idempotency_keys.created_at < clock_timestamp() - make_interval(secs => $7))
       RETURNING created_at::text AS token`,
      [req.workspaceId, req.key, req.method, req.path, req.hash, KEY_TTL_SECONDS, STALE_CLAIM_SECONDS],
    );
    return rows[0]?.token ?? null;
  }

  private async find(workspaceId: string, key: string): Promise<StoredKey | null> {
    const rows: Array<{ request_hash: string; status: StoredKey['status']; response_status: number | null; response_body: unknown }> = await this.ds.query(
      'SELECT request_hash, status, response_status, response_body FROM idempotency_keys WHERE workspace_id = $1 AND key = $2',
      [workspaceId, key],
    );
    const r = rows[0];
    return r ? { requestHash: r.request_hash, status: r.status, responseStatus: r.response_status, responseBody: r.response_body } : null;
  }

  /** Expired keys go a batch at a time, at most once a minute per process; the claim never waits for it. */
  private sweepSometimes(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    this.ds
      .query(
        `DELETE FROM idempotency_keys WHERE (workspace_id, key) IN
           (SELECT workspace_id, key FROM idempotency_keys WHERE expires_at < now() LIMIT ${SWEEP_BATCH})`,
      )
      .catch(async (err: unknown) => {
        if (!(await outages.covers(err))) this.logger.warn({ msg: 'could not sweep expired idempotency keys', err: String(err) });
      });
  }
}
