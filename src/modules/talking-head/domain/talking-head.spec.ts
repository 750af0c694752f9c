import { describe, expect, it } from '@jest/globals';
import { platformFor, pricing, talkingHeadRefusal } from './talking-head.js';

const PRICES = { preview: 2, perSecond: 1, minSeconds: 5 };

describe('talking-head pricing (contract §3, §12)', () => {
  it('charges a preview its flat price', () => {
    expect(pricing('preview', 'Hi', PRICES)).toEqual({ estimatedSeconds: 1, credits: 2 });
  });

  it.each([
    ['x'.repeat(15), 1, 5],
    ['x'.repeat(75), 5, 5],
    ['x'.repeat(76), 6, 6],
    ['x'.repeat(2000), 134, 134],
  ])('a full script of %#: estimated at 15 characters a second, at least 5 seconds charged', (script, seconds, credits) => {
    expect(pricing('full', script, PRICES)).toEqual({ estimatedSeconds: seconds, credits });
  });

  it('scales with the configured price per second', () => {
    expect(pricing('full', 'x'.repeat(150), { ...PRICES, perSecond: 3 }).credits).toBe(30);
  });
});

describe('talkingHeadRefusal: the feature first, then the primary image', () => {
  it('refuses a character with talking heads off, whatever its images', () => {
    expect(talkingHeadRefusal({ talkingHeadEnabled: false, hasPrimaryImage: true })?.code).toBe('invalid_state_transition');
    expect(talkingHeadRefusal({ talkingHeadEnabled: false, hasPrimaryImage: false })?.code).toBe('invalid_state_transition');
  });

  it('then one without a primary reference image', () => {
    expect(talkingHeadRefusal({ talkingHeadEnabled: true, hasPrimaryImage: false })?.code).toBe('reference_image_required');
    expect(talkingHeadRefusal({ talkingHeadEnabled: true, hasPrimaryImage: true })).toBeNull();
  });
});

describe('platformFor', () => {
  it('files a video by its shape', () => {
    expect([platformFor('9:16'), platformFor('16:9'), platformFor('1:1')]).toEqual(['tiktok', 'youtube', 'instagram']);
  });
});
