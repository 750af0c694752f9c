import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { CONTENT_STATUSES, type ContentStatus, type ReviewStatus, type StoredMedia } from '../../content/index.js';
import { assertMediaReviewable, reviewMedia } from './media-review.js';

const medium = (index: number, reviewStatus: ReviewStatus = 'pending'): StoredMedia => ({
  index, kind: 'image', key: `content/x/${index}.png`, url: `u${index}`, contentType: 'image/png', width: 1, height: 1, reviewStatus,
});
const item = (status: ContentStatus, ...reviews: ReviewStatus[]) => ({ status, media: reviews.map((r, i) => medium(i, r)) });

describe('reviewMedia', () => {
  it('approving the last pending medium approves a ready item', () => {
    const out = reviewMedia(item('ready', 'approved', 'approved', 'pending'), 2, 'approve');
    expect(out.media.map((m) => m.reviewStatus)).toEqual(['approved', 'approved', 'approved']);
    expect(out).toMatchObject({ status: 'approved', itemApproved: true });
  });

  it('approves a rejected item once all its media are approved', () => {
    expect(reviewMedia(item('rejected', 'pending'), 0, 'approve')).toMatchObject({ status: 'approved', itemApproved: true });
  });

  it('leaves the item as it is while some media are not approved', () => {
    const out = reviewMedia(item('ready', 'pending', 'pending'), 0, 'approve');
    expect(out).toMatchObject({ status: 'ready', itemApproved: false });
    expect(out.media.map((m) => m.reviewStatus)).toEqual(['approved', 'pending']);
  });

  it('a rejected medium does not change the item status', () => {
    expect(reviewMedia(item('approved', 'approved', 'approved'), 1, 'reject')).toMatchObject({ status: 'approved', itemApproved: false });
    expect(reviewMedia(item('ready', 'pending'), 0, 'reject').media[0].reviewStatus).toBe('rejected');
  });

  it('an approved item whose media all become approved stays approved without counting as a new approval', () => {
    expect(reviewMedia(item('approved', 'rejected'), 0, 'approve')).toMatchObject({ status: 'approved', itemApproved: false });
  });

  it('does not touch the input', () => {
    const input = item('ready', 'pending');
    reviewMedia(input, 0, 'approve');
    expect(input.media[0].reviewStatus).toBe('pending');
  });

  it.each(['queued', 'generating', 'failed', 'published'] as const)('refuses a %s item with 409', (status) => {
    expect(() => reviewMedia(item(status, 'pending'), 0, 'approve')).toThrow(expect.objectContaining({ code: 'invalid_state_transition' }));
  });

  it.each([-1, 1, 1.5, Number.NaN])('answers 404 for media index %p', (index) => {
    let err: unknown;
    try {
      reviewMedia(item('ready', 'pending'), index, 'approve');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('not_found');
  });
});

describe('assertMediaReviewable', () => {
  it('media can be reviewed only while ready, approved or rejected', () => {
    const reviewable: readonly ContentStatus[] = ['ready', 'approved', 'rejected'];
    for (const s of CONTENT_STATUSES) {
      if (reviewable.includes(s)) expect(() => assertMediaReviewable(s, 'approve_media')).not.toThrow();
      else expect(() => assertMediaReviewable(s, 'reject_media')).toThrow(expect.objectContaining({ details: { from: s, action: 'reject_media' } }));
    }
  });
});
