import { Injectable } from '@nestjs/common';
import { changedRows, type Tx } from '../../../platform/database/index.js';
import type { ScheduledPost } from '../domain/scheduled-post.js';
import { COLUMNS, P_COLUMNS, toPost, type PostRow } from './scheduled-post-row.js';

/**
 * The only cross-workspace queries on scheduled posts: for the dispatcher and the sweeper, which
 * serve every workspace from one queue. Each post they answer carries its workspace id, and from
 * there on a post is addressed through ScheduledPostsRepository, which always takes it.
 * Nothing a user asks for goes through here.
 */
@Injectable()
export class PublishQueueScan {
  /**
   * Claims up to `limit` due posts of any workspace for `claimId`: pending → publishing, one more
   * attempt. Rows another claimer holds are skipped, so several dispatchers never take the same post.
   */
  async claimDue(tx: Tx, claimId: string, limit: number): Promise<ScheduledPost[]> {
    const rows = await changedRows<PostRow>(tx, `UPDATE scheduled_posts p SET status = 'publishing', attempts = p.attempts + 1, claim_id = $1, claimed_at = now(),
         call_started_at = NULL, remote_handle = NULL, updated_at = now()
       FROM (SELECT id FROM scheduled_posts WHERE status = 'pending' AND due_at <= now() ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED) due
       WHERE p.id = due.id RETURNING ${P_COLUMNS}`,
      [claimId, limit],
    );
    return rows.map(toPost);
  }

  /** Posts claimed and queued whose attempt has not sent anything yet, across all workers and workspaces. */
  async queuedCount(tx: Tx): Promise<number> {
    const rows: Array<{ n: number }> = await tx.query(`SELECT count(*)::int AS n FROM scheduled_posts WHERE status = 'publishing' AND call_started_at IS NULL`);
    return rows[0].n;
  }

  /** Posts in publishing, in any workspace, whose claim is older than the lease: their worker is gone or stuck. */
  async abandoned(tx: Tx, leaseSeconds: number, limit: number): Promise<ScheduledPost[]> {
    const rows: PostRow[] = await tx.query(
      `SELECT ${COLUMNS} FROM scheduled_posts WHERE status = 'publishing' AND claimed_at < now() - ($1 || ' seconds')::interval
       ORDER BY claimed_at LIMIT $2`,
      [String(leaseSeconds), limit],
    );
    return rows.map(toPost);
  }

  /**
   * The workspace of a post known only by its id. Only for `publish` messages queued by a release
   * that sent the bare post id; null when the post is gone.
   */
  async workspaceOfPost(tx: Tx, postId: string): Promise<string | null> {
    const rows: Array<{ workspace_id: string }> = await tx.query(`SELECT workspace_id FROM scheduled_posts WHERE id = $1`, [postId]);
    return rows[0]?.workspace_id ?? null;
  }
}
