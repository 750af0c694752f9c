import { AppError } from '../../../core/index.js';
import { canTransition, type ContentItem, type ContentStatus, type ReviewStatus, type StoredMedia } from '../../content/index.js';

export interface MediaReviewOutcome {
  media: StoredMedia[];
  status: ContentStatus;
  /** True when approving this medium approved the whole item. */
  itemApproved: boolean;
}

/** Finished media can be reviewed one by one; before it exists, after failure or publication not. */
const MEDIA_REVIEWABLE: readonly ContentStatus[] = ['ready', 'approved', 'rejected'];

export function assertMediaReviewable(status: ContentStatus, action: 'approve_media' | 'reject_media'): void {
  if (!MEDIA_REVIEWABLE.includes(status)) throw AppError.invalidTransition(status, action);
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
