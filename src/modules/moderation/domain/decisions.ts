import { nextStatus, type ContentItem, type ReviewChange } from '../../content/index.js';
import { reviewMedia } from './media-review.js';

/** A rejection reason is kept up to this many characters. */
export const REJECTION_REASON_MAX = 500;

/** Approve: from ready or rejected; a former rejection reason goes. */
export function approval(item: Pick<ContentItem, 'status'>): ReviewChange {
  return { status: nextStatus(item.status, 'approve'), rejectionReason: null };
}

/** Reject: from ready or approved, with the reviewer's reason when given. */
export function rejection(item: Pick<ContentItem, 'status'>, reason?: string): ReviewChange {
  return { status: nextStatus(item.status, 'reject'), rejectionReason: reason ?? null };
}

/** One medium's review; approving the last one approves the item and clears its rejection reason. */
export function mediumReview(item: Pick<ContentItem, 'status' | 'media'>, index: number, decision: 'approve' | 'reject'): ReviewChange {
  const outcome = reviewMedia(item, index, decision);
  return { media: outcome.media, status: outcome.status, ...(outcome.itemApproved ? { rejectionReason: null } : {}) };
}
