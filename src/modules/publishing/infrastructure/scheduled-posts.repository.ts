import { Injectable } from '@nestjs/common';
import { offsetOf, type Page, type PageRequest, type Platform } from '../../../core/index.js';
import { changedRows, type Tx } from '../../../platform/database/index.js';
import type { PostStatus, ScheduledPost } from '../domain/scheduled-post.js';
import { COLUMNS, toPost, type PostRow } from './scheduled-post-row.js';

export interface NewPost {
  id: string;
  workspaceId: string;
  contentId: string;
  characterId: string;
  platform: string;
  platformKey: Platform;
  scheduledAt: Date;
}

export interface PostFilter {
  characterId?: string;
  platforms?: Platform[];
  statuses: PostStatus[];
  from?: Date;
  to?: Date;
}

/** How a publish attempt ended, as stored. */
export type AttemptResult =
  | { status: 'published'; publishedAt: Date; remotePostId: string; remoteUrl: string | null; mediaUrls: string[] }
  | { status: 'pending'; nextAttemptAt: Date; error: { code: string; message: string } }
  | { status: 'failed'; error: { code: string; message: string } };

/**
 * One workspace's scheduled posts: every method takes the workspace id and scopes its query by it
 * (the dispatcher's cross-workspace scans live in PublishQueueScan). New posts carry theirs in the row.
 */
@Injectable()
export class ScheduledPostsRepository {
  async insert(tx: Tx, posts: NewPost[]): Promise<ScheduledPost[]> {
    if (posts.length === 0) return [];
    const values: unknown[] = [];
    const tuples = posts.map((p, i) => {
      values.push(p.id, p.workspaceId, p.contentId, p.characterId, p.platform, p.platformKey, p.scheduledAt);
      const b = i * 7;
      return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, 'pending', $${b + 7}, $${b + 7})`;
    });
    const rows: PostRow[] = await tx.query(
      `INSERT INTO scheduled_posts (id, workspace_id, content_id, character_id, platform, platform_key, status, scheduled_at, due_at)
       VALUES ${tuples.join(', ')} RETURNING ${COLUMNS}`,
      values,
    );
    return rows.map(toPost);
  }

  async find(tx: Tx, workspaceId: string, id: string, opts: { lock?: boolean } = {}): Promise<ScheduledPost | null> {
    const rows: PostRow[] = await tx.query(
      `SELECT ${COLUMNS} FROM scheduled_posts WHERE id = $1 AND workspace_id = $2${opts.lock ? ' FOR UPDATE' : ''}`,
      [id, workspaceId],
    );
    return rows[0] ? toPost(rows[0]) : null;
  }

  /** The pending (or in-flight) post of an item on a platform, locked. */
  async findOpen(tx: Tx, workspaceId: string, contentId: string, platform: Platform): Promise<ScheduledPost | null> {
    const rows: PostRow[] = await tx.query(
      `SELECT ${COLUMNS} FROM scheduled_posts WHERE workspace_id = $1 AND content_id = $2 AND platform_key = $3
         AND status IN ('pending', 'publishing') FOR UPDATE`,
      [workspaceId, contentId, platform],
    );
    return rows[0] ? toPost(rows[0]) : null;
  }

  async page(tx: Tx, workspaceId: string, filter: PostFilter, page: PageRequest, order: 'upcoming' | 'newest'): Promise<Page<ScheduledPost>> {
    const where = ['workspace_id = $1', 'status = ANY($2::text[])'];
    const params: unknown[] = [workspaceId, filter.statuses];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filter.characterId) add('character_id = ?', filter.characterId);
    if (filter.platforms) add('platform_key = ANY(?::text[])', filter.platforms);
    if (filter.from) add('scheduled_at >= ?', filter.from);
    if (filter.to) add('scheduled_at < ?', filter.to);
    params.push(page.pageSize, offsetOf(page));
    const orderBy = order === 'upcoming' ? 'scheduled_at ASC, id ASC' : 'updated_at DESC, id DESC';
    const rows: PostRow[] = await tx.query(
      `SELECT ${COLUMNS}, count(*) OVER () AS total FROM scheduled_posts WHERE ${where.join(' AND ')}
       ORDER BY ${orderBy} LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    const total = rows[0]?.total !== undefined ? Number(rows[0].total) : page.page === 1 ? 0 : await this.count(tx, where, params.slice(0, -2));
    return { items: rows.map(toPost), page: page.page, pageSize: page.pageSize, total };
  }

  private async count(tx: Tx, where: string[], params: unknown[]): Promise<number> {
    const rows: Array<{ n: string }> = await tx.query(`SELECT count(*) AS n FROM scheduled_posts WHERE ${where.join(' AND ')}`, params);
    return Number(rows[0].n);
  }

  /** Posts of a character that keep new slots at a distance: waiting, in flight or made, in a window. */
  async plannedTimes(tx: Tx, workspaceId: string, characterId: string, from: Date, to: Date): Promise<Array<{ platform: Platform; at: Date }>> {
    const rows: Array<{ platform_key: Platform; scheduled_at: Date }> = await tx.query(
      `SELECT platform_key, scheduled_at FROM scheduled_posts WHERE workspace_id = $1 AND character_id = $2
         AND status IN ('pending', 'publishing', 'published') AND scheduled_at >= $3 AND scheduled_at < $4`,
      [workspaceId, characterId, from, to],
    );
    return rows.map((r) => ({ platform: r.platform_key, at: new Date(r.scheduled_at) }));
  }

  /** Items of a character that already have a post waiting or in flight. */
  async scheduledContentIds(tx: Tx, workspaceId: string, characterId: string): Promise<string[]> {
    const rows: Array<{ content_id: string }> = await tx.query(
      `SELECT DISTINCT content_id FROM scheduled_posts WHERE workspace_id = $1 AND character_id = $2 AND status IN ('pending', 'publishing')`,
      [workspaceId, characterId],
    );
    return rows.map((r) => r.content_id);
  }

  async reschedule(tx: Tx, workspaceId: string, id: string, at: Date): Promise<ScheduledPost | null> {
    return this.updateOne(tx, `scheduled_at = $3, due_at = $3, next_attempt_at = NULL`, [id, workspaceId, at], `status = 'pending'`);
  }

  async cancel(tx: Tx, workspaceId: string, id: string): Promise<ScheduledPost | null> {
    return this.updateOne(tx, `status = 'cancelled'`, [id, workspaceId], `status = 'pending'`);
  }

  /**
   * Gives a claim back (its message could not be queued, or a stop let it go): pending again, the
   * attempt not counted. Only while nothing was sent under it; false when it was (or the claim is
   * no longer this one), and then the post stays for the sweeper to reconcile.
   */
  async releaseClaim(tx: Tx, workspaceId: string, id: string, claimId: string): Promise<boolean> {
    const rows = await changedRows<unknown>(tx,
      `UPDATE scheduled_posts SET status = 'pending', claim_id = NULL, claimed_at = NULL, attempts = attempts - 1, updated_at = now()
       WHERE id = $1 AND workspace_id = $2 AND claim_id = $3 AND status = 'publishing' AND call_started_at IS NULL RETURNING id`,
      [id, workspaceId, claimId],
    );
    return rows.length > 0;
  }

  /** Claims one post of a workspace now, whatever its due time (publish-now). */
  async claimNow(tx: Tx, workspaceId: string, id: string, claimId: string): Promise<ScheduledPost | null> {
    return this.updateOne(tx, `status = 'publishing', attempts = attempts + 1, claim_id = $3, claimed_at = now(), call_started_at = NULL, remote_handle = NULL`, [id, workspaceId, claimId], `status = 'pending'`);
  }

  /** Marks that the irreversible call is about to be sent; false when the claim is no longer ours. */
  async markCallStarted(tx: Tx, workspaceId: string, id: string, claimId: string): Promise<boolean> {
    const rows = await changedRows<unknown>(tx, `UPDATE scheduled_posts SET call_started_at = now(), claimed_at = now()
       WHERE id = $1 AND workspace_id = $2 AND claim_id = $3 AND status = 'publishing' AND call_started_at IS NULL RETURNING id`,
      [id, workspaceId, claimId],
    );
    return rows.length > 0;
  }

  /** Keeps the platform's id of an attempt whose outcome is unknown, for reconciliation. */
  async setHandle(tx: Tx, workspaceId: string, id: string, claimId: string, handle: string): Promise<void> {
    await tx.query(
      `UPDATE scheduled_posts SET remote_handle = $4 WHERE id = $1 AND workspace_id = $2 AND claim_id = $3 AND status = 'publishing'`,
      [id, workspaceId, claimId, handle],
    );
  }

  /** Keeps a claim's lease alive while its attempt runs. */
  async renewClaim(tx: Tx, workspaceId: string, id: string, claimId: string): Promise<void> {
    await tx.query(
      `UPDATE scheduled_posts SET claimed_at = now() WHERE id = $1 AND workspace_id = $2 AND claim_id = $3 AND status = 'publishing'`,
      [id, workspaceId, claimId],
    );
  }

  /**
   * Leaves a sent post whose outcome is still unknown `publishing` under its claim, with nobody
   * working on it: its lease is set to run out in `inMs`, when the sweeper checks it again.
   */
  async deferCheck(tx: Tx, workspaceId: string, id: string, claimId: string, inMs: number, leaseSeconds: number): Promise<void> {
    await tx.query(
      `UPDATE scheduled_posts SET claimed_at = now() + make_interval(secs => $4::double precision / 1000) - make_interval(secs => $5::double precision)
       WHERE id = $1 AND workspace_id = $2 AND claim_id = $3 AND status = 'publishing'`,
      [id, workspaceId, claimId, inMs, leaseSeconds],
    );
  }

  /**
   * The platform confirmed a sent post does not exist: the call mark is cleared so the attempt
   * under this claim (one more) can send it, once. Only when the call is older than `settledSeconds`
   * by the database's clock; null otherwise, or when the claim is no longer ours.
   */
  async resend(tx: Tx, workspaceId: string, id: string, claimId: string, settledSeconds: number): Promise<ScheduledPost | null> {
    const rows = await changedRows<PostRow>(tx, `UPDATE scheduled_posts SET call_started_at = NULL, remote_handle = NULL, attempts = attempts + 1, claimed_at = now(), updated_at = now()
       WHERE id = $1 AND workspace_id = $2 AND claim_id = $3 AND status = 'publishing'
         AND call_started_at <= now() - make_interval(secs => $4::double precision) RETURNING ${COLUMNS}`,
      [id, workspaceId, claimId, settledSeconds],
    );
    return rows[0] ? toPost(rows[0]) : null;
  }

  /** A success that arrived after the post was given up as `unconfirmed`: the platform's answer wins. */
  async publishedAfterAll(tx: Tx, workspaceId: string, id: string, result: Extract<AttemptResult, { status: 'published' }>): Promise<ScheduledPost | null> {
    const rows = await changedRows<PostRow>(tx, `UPDATE scheduled_posts SET status = 'published', published_at = $3, remote_post_id = $4, remote_url = $5,
         media_urls = $6::jsonb, error_code = NULL, error_message = NULL, updated_at = now()
       WHERE id = $1 AND workspace_id = $2 AND status = 'failed' AND error_code = 'unconfirmed' RETURNING ${COLUMNS}`,
      [id, workspaceId, result.publishedAt, result.remotePostId, result.remoteUrl, JSON.stringify(result.mediaUrls)],
    );
    return rows[0] ? toPost(rows[0]) : null;
  }

  /** Records how the attempt under `claimId` ended; null when the claim is no longer ours. */
  async finishAttempt(tx: Tx, workspaceId: string, id: string, claimId: string, result: AttemptResult): Promise<ScheduledPost | null> {
    const params: unknown[] = [id, workspaceId, claimId];
    let set: string;
    if (result.status === 'published') {
      params.push(result.publishedAt, result.remotePostId, result.remoteUrl, JSON.stringify(result.mediaUrls));
      set = `status = 'published', published_at = $4, remote_post_id = $5, remote_url = $6, media_urls = $7::jsonb, error_code = NULL, error_message = NULL`;
    } else if (result.status === 'pending') {
      params.push(result.nextAttemptAt, result.error.code, result.error.message);
      set = `status = 'pending', due_at = $4, next_attempt_at = $4, call_started_at = NULL, error_code = $5, error_message = $6`;
    } else {
      params.push(result.error.code, result.error.message);
      set = `status = 'failed', error_code = $4, error_message = $5`;
    }
    const rows = await changedRows<PostRow>(tx, `UPDATE scheduled_posts SET ${set}, claim_id = NULL, updated_at = now()
       WHERE id = $1 AND workspace_id = $2 AND claim_id = $3 AND status = 'publishing' RETURNING ${COLUMNS}`,
      params,
    );
    return rows[0] ? toPost(rows[0]) : null;
  }

  /** Takes over an abandoned claim; null when someone else did first. */
  async reclaim(tx: Tx, workspaceId: string, id: string, oldClaimId: string | null, newClaimId: string, leaseSeconds: number): Promise<ScheduledPost | null> {
    const rows = await changedRows<PostRow>(tx, `UPDATE scheduled_posts SET claim_id = $4, claimed_at = now(), updated_at = now()
       WHERE id = $1 AND workspace_id = $2 AND status = 'publishing' AND claim_id IS NOT DISTINCT FROM $3::text
         AND claimed_at < now() - ($5 || ' seconds')::interval RETURNING ${COLUMNS}`,
      [id, workspaceId, oldClaimId, newClaimId, String(leaseSeconds)],
    );
    return rows[0] ? toPost(rows[0]) : null;
  }

  /** Remote ids already recorded for the workspace's posts on a platform since `since`. */
  async remoteIdsSince(tx: Tx, workspaceId: string, platform: Platform, since: Date): Promise<Set<string>> {
    const rows: Array<{ remote_post_id: string }> = await tx.query(
      `SELECT remote_post_id FROM scheduled_posts WHERE workspace_id = $1 AND platform_key = $2 AND remote_post_id IS NOT NULL AND published_at >= $3`,
      [workspaceId, platform, since],
    );
    return new Set(rows.map((r) => r.remote_post_id));
  }

  /** The workspace's published posts (newest first), on one platform and from `since` when given. */
  async published(tx: Tx, workspaceId: string, opts: { platform?: Platform; since?: Date }): Promise<ScheduledPost[]> {
    const rows: PostRow[] = await tx.query(
      `SELECT ${COLUMNS} FROM scheduled_posts WHERE workspace_id = $1 AND status = 'published' AND remote_post_id IS NOT NULL
         AND ($2::text IS NULL OR platform_key = $2) AND ($3::timestamptz IS NULL OR published_at >= $3) ORDER BY published_at DESC LIMIT 10000`,
      [workspaceId, opts.platform ?? null, opts.since ?? null],
    );
    return rows.map(toPost);
  }

  /** The character whose post on `platform` the platform knows as `remotePostId`, or null (one post per remote id: scheduled_posts_remote). */
  async characterOfRemotePost(tx: Tx, workspaceId: string, platform: Platform, remotePostId: string): Promise<string | null> {
    const rows: Array<{ character_id: string }> = await tx.query(
      `SELECT character_id FROM scheduled_posts WHERE platform_key = $2 AND remote_post_id = $3 AND workspace_id = $1 LIMIT 1`,
      [workspaceId, platform, remotePostId],
    );
    return rows[0]?.character_id ?? null;
  }

  /** The calendar's posts within [startsAt, endsBefore): a published one by when it was published, the others by their schedule. */
  async between(tx: Tx, workspaceId: string, range: { startsAt: Date; endsBefore: Date; characterId?: string }): Promise<ScheduledPost[]> {
    const rows: PostRow[] = await tx.query(
      `SELECT ${COLUMNS} FROM scheduled_posts WHERE workspace_id = $1
         AND ((published_at >= $2 AND published_at < $3) OR (published_at IS NULL AND scheduled_at >= $2 AND scheduled_at < $3))
         AND ($4::text IS NULL OR character_id = $4) AND status <> 'cancelled' ORDER BY COALESCE(published_at, scheduled_at) LIMIT 1000`,
      [workspaceId, range.startsAt, range.endsBefore, range.characterId ?? null],
    );
    return rows.map(toPost);
  }

  private async updateOne(tx: Tx, set: string, params: unknown[], condition: string): Promise<ScheduledPost | null> {
    const rows = await changedRows<PostRow>(tx, `UPDATE scheduled_posts SET ${set}, updated_at = now() WHERE id = $1 AND workspace_id = $2 AND ${condition} RETURNING ${COLUMNS}`,
      params,
    );
    return rows[0] ? toPost(rows[0]) : null;
  }
}
