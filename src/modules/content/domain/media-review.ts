import { AppError } from '../../../core/index.js';
import type { ContentItem, ContentStatus, ReviewStatus, StoredMedia } from './content-item.js';
import { assertMediaReviewable, canTransition } from './content-status.js';

export interface MediaReviewOutcome {
  media: StoredMedia[];
  status: ContentStatus;
  /** True when approving this medium approved the whole item. */
  itemApproved: boolean;
}

/**
 * Sets one medium's review status. When every medium is then approved the item is approved too,
 * where its status allows an approval (from ready or rejected); an already approved item stays so.
 * A rejected medium leaves the item's status alone: the reviewer decides with reject or regenerate.
 */
export function reviewMedia(item: Pick<ContentItem, 'status' | 'media'>, index: number, decision: 'approve' | 'reject'): MediaReviewOutcome {
  assertMediaReviewable(item.status, decision === 'approve' ? 'approve_media' : 'reject_media');
  if (!Number.isInteger(index) || index < 0 || index >= item.media.length) throw AppError.notFound('Media');
  const review: ReviewStatus = decision === 'approve' ? 'approved' : 'rejected';
  const media = item.media.map((m, i) => (i === index ? { ...m, reviewStatus: review } : m));
  const allApproved = media.every((m) => m.reviewStatus === 'approved');
  const itemApproved = allApproved && canTransition(item.status, 'approve');
  return { media, status: itemApproved ? 'approved' : item.status, itemApproved };
}
