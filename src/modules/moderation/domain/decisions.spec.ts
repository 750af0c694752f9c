import { describe, expect, it } from '@jest/globals';
import type { StoredMedia } from '../../content/index.js';
import { approval, mediumReview, rejection } from './decisions.js';

const medium = (index: number, reviewStatus: StoredMedia['reviewStatus']): StoredMedia => ({
  index, kind: 'image', key: `k${index}`, url: `u${index}`, contentType: 'image/png', width: 1, height: 1, reviewStatus,
});

describe('moderation decisions', () => {
  it('approval clears a former rejection reason; it is refused from queued', () => {
    expect(approval({ status: 'rejected' })).toEqual({ status: 'approved', rejectionReason: null });
    expect(() => approval({ status: 'queued' })).toThrow(expect.objectContaining({ code: 'invalid_state_transition' }));
  });

  it('rejection keeps the reason, or none', () => {
    expect(rejection({ status: 'ready' }, 'Off-brand')).toEqual({ status: 'rejected', rejectionReason: 'Off-brand' });
    expect(rejection({ status: 'approved' })).toEqual({ status: 'rejected', rejectionReason: null });
    expect(() => rejection({ status: 'published' })).toThrow(expect.objectContaining({ code: 'invalid_state_transition' }));
  });

  it('approving the last medium approves the item and clears the reason; a partial review leaves both', () => {
    expect(mediumReview({ status: 'rejected', media: [medium(0, 'approved'), medium(1, 'pending')] }, 1, 'approve')).toMatchObject({ status: 'approved', rejectionReason: null });
    const partial = mediumReview({ status: 'ready', media: [medium(0, 'pending'), medium(1, 'pending')] }, 0, 'approve');
    expect(partial.status).toBe('ready');
    expect(partial).not.toHaveProperty('rejectionReason');
  });
});
