import { randomBytes } from 'node:crypto';
import type { Platform } from '../../../core/index.js';

export const POST_STATUSES = ['pending', 'publishing', 'published', 'failed', 'cancelled'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/** Statuses the history shows: the post is done, one way or another. */
export const FINISHED_STATUSES: readonly PostStatus[] = ['published', 'failed', 'cancelled'];

export interface PostError {
  code: string;
  message: string;
}

/** A scheduled post (contract §8); the row is also the record of its publish attempts. */
export interface ScheduledPost {
  id: string;
  workspaceId: string;
  contentId: string;
  characterId: string;
  /** As the client spelled it. */
  platform: string;
  platformKey: Platform;
  status: PostStatus;
  scheduledAt: Date;
  dueAt: Date;
  nextAttemptAt: Date | null;
  attempts: number;
  claimId: string | null;
  claimedAt: Date | null;
  /** Set just before the irreversible platform call: from then on the outcome must be reconciled. */
  callStartedAt: Date | null;
  /** The platform's id of the attempt whose outcome is unknown (TikTok's publish id), for reconciliation. */
  remoteHandle: string | null;
  publishedAt: Date | null;
  remotePostId: string | null;
  remoteUrl: string | null;
  mediaUrls: string[];
  error: PostError | null;
  createdAt: Date;
  updatedAt: Date;
}

export function isPostStatus(value: unknown): value is PostStatus {
  return typeof value === 'string' && (POST_STATUSES as readonly string[]).includes(value);
}

/** A post can be rescheduled or cancelled only while it waits. */
export function isEditable(post: Pick<ScheduledPost, 'status'>): boolean {
  return post.status === 'pending';
}

/** A fresh claim id: who holds a post in `publishing` (the dispatcher's batch, publish-now, a takeover). */
export function newClaimId(): string {
  return randomBytes(12).toString('hex');
}
