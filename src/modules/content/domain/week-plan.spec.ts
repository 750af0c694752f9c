import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { parseDate } from './schedule-time.js';
import { mediaRefusal, canonicalPlatform, type PlatformName } from '../../../core/index.js';
import { planWeekItems, weekSlots, WEEK_VIDEO, type PlannedPostInput } from './week-plan.js';

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

  it('decides every type from the platform, whatever the planner said: reels and shorts are videos', () => {
    const items = planWeekItems(posts(7, 1, 'carousel'), { ...spec, postsPerDay: 1, platforms: ['tiktok'] });
    expect(items.map((i) => [i.contentType, i.kind])).toEqual(Array(7).fill(['short', 'video']));
    const mixed = weekSlots(2, ['instagram', 'x', 'youtube']).map((s) => `${s.platform}:${s.contentType}:${s.kind}`);
    expect(mixed.slice(0, 9)).toEqual([
      'instagram:single:image', 'x:single:image', 'youtube:short:video',
      'instagram:reel:video', 'x:single:image', 'youtube:short:video',
      'instagram:story:image', 'x:single:image', 'youtube:short:video',
    ]);
  });

  it('only plans media each platform would publish (the media rules table)', () => {
    const names: PlatformName[] = ['instagram', 'photo_share', 'tiktok', 'youtube', 'twitter', 'x', 'pinterest', 'pinboard'];
    for (const slot of weekSlots(4, names)) {
      const media = [slot.kind === 'video' ? { kind: 'video' as const, durationSeconds: WEEK_VIDEO.durationSeconds } : { kind: 'image' as const }];
      expect(mediaRefusal(canonicalPlatform(slot.platform as PlatformName), slot.contentType, media)).toBeNull();
    }
  });
});
