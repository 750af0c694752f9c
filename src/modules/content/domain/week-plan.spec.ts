import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { parseDate } from './schedule-time.js';
import { plannedContentType, planWeekItems, type PlannedPostInput } from './week-plan.js';

function posts(n: number, perDay: number, type = 'single'): PlannedPostInput[] {
  return Array.from({ length: n }, (_, k) => ({
    day: Math.floor(k / perDay), slot: k % perDay, platform: 'ignored', contentType: type,
    imagePrompt: `prompt ${k}`, caption: `caption ${k}`, hashtags: ['#a'], cta: 'Follow',
  }));
}

const spec = { weekStart: parseDate('2024-07-15')!, postsPerDay: 2, platforms: ['instagram', 'x', 'pinboard'], timeZone: 'America/New_York' };

describe('planWeekItems', () => {
  it('makes seven days of slots, platforms round-robin, planned in the zone', () => {
    const items = planWeekItems(posts(14, 2).reverse(), spec);
    expect(items).toHaveLength(14);
    expect(items.map((i) => i.platform).slice(0, 4)).toEqual(['instagram', 'x', 'pinboard', 'instagram']);
    expect(items.map((i) => i.planIndex)).toEqual([...Array(14).keys()]);
    expect(items[0]).toMatchObject({ imagePrompt: 'prompt 0', caption: 'caption 0', plannedFor: new Date('2024-07-15T14:00:00Z') });
    expect(items[13].plannedFor).toEqual(new Date('2024-07-21T22:00:00Z'));
  });

  it('drops extra posts and refuses too few with upstream_failed', () => {
    expect(planWeekItems(posts(20, 2), spec)).toHaveLength(14);
    let err: unknown;
    try {
      planWeekItems(posts(13, 2), spec);
    } catch (e) {
      err = e;
    }
    expect((err as AppError).code).toBe('upstream_failed');
  });

  it('clamps provider text to the item limits', () => {
    const long = posts(7, 1).map((p) => ({ ...p, caption: 'c'.repeat(5000), hashtags: Array(50).fill('#x') }));
    const items = planWeekItems(long, { ...spec, postsPerDay: 1 });
    expect(items[0].caption).toHaveLength(2200);
    expect(items[0].hashtags).toHaveLength(30);
  });

  it('keeps planned types, except carousel and unknown ones become single (one image paid)', () => {
    expect(plannedContentType('reel')).toBe('reel');
    expect(plannedContentType('story')).toBe('story');
    expect(plannedContentType('carousel')).toBe('single');
    expect(plannedContentType('gif')).toBe('single');
  });
});
