import type { Platform } from '../../../core/index.js';
import type { PostStatus, ScheduledPost } from '../domain/scheduled-post.js';

/** A `scheduled_posts` row as PostgreSQL answers it; shared by the tenant repository and the queue scan. */
export interface PostRow {
  id: string;
  workspace_id: string;
  content_id: string;
  character_id: string;
  platform: string;
  platform_key: Platform;
  status: PostStatus;
  scheduled_at: Date;
  due_at: Date;
  next_attempt_at: Date | null;
  attempts: number;
  claim_id: string | null;
  claimed_at: Date | null;
  call_started_at: Date | null;
  remote_handle: string | null;
  published_at: Date | null;
  remote_post_id: string | null;
  remote_url: string | null;
  media_urls: string[];
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
  updated_at: Date;
  total?: string;
}

export const COLUMNS = `id, workspace_id, content_id, character_id, platform, platform_key, status, scheduled_at, due_at,
  next_attempt_at, attempts, claim_id, claimed_at, call_started_at, remote_handle, published_at, remote_post_id, remote_url,
  media_urls, error_code, error_message, created_at, updated_at`;
/** The columns of `scheduled_posts p`, for an UPDATE … FROM whose RETURNING would be ambiguous. */
export const P_COLUMNS = COLUMNS.split(',').map((c) => `p.${c.trim()}`).join(', ');

const date = (v: Date | null): Date | null => (v ? new Date(v) : null);

export function toPost(r: PostRow): ScheduledPost {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    contentId: r.content_id,
    characterId: r.character_id,
    platform: r.platform,
    platformKey: r.platform_key,
    status: r.status,
    scheduledAt: new Date(r.scheduled_at),
    dueAt: new Date(r.due_at),
    nextAttemptAt: date(r.next_attempt_at),
    attempts: r.attempts,
    claimId: r.claim_id,
    claimedAt: date(r.claimed_at),
    callStartedAt: date(r.call_started_at),
    remoteHandle: r.remote_handle,
    publishedAt: date(r.published_at),
    remotePostId: r.remote_post_id,
    remoteUrl: r.remote_url,
    mediaUrls: r.media_urls ?? [],
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}
