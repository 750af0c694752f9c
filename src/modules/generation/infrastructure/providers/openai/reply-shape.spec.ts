import { describe, expect, it } from '@jest/globals';
import { captionDraft, captionVariants, replyObject, replyText, ReplyShapeError, weekPosts } from './reply-shape.js';
import type { WeekSlot } from '../shared/week-slots.js';

const ok = { caption: 'Hello', hashtags: ['#garden', 'Garden', 'tomatoes'], cta: 'Follow' };

describe('reply shape checks', () => {
  it('normalises hashtags: no #, no duplicates', () => {
    expect(captionDraft(ok, 'r', 'en').hashtags).toEqual(['garden', 'tomatoes']);
  });

  it.each([
    ['a caption over 2200 characters', { ...ok, caption: 'x'.repeat(2201) }],
    ['an empty caption', { ...ok, caption: '  ' }],
    ['hashtags that are not a list', { ...ok, hashtags: 'garden' }],
    ['more than 30 hashtags', { ...ok, hashtags: Array.from({ length: 31 }, (_, i) => `tag${i}`) }],
    ['a hashtag with spaces', { ...ok, hashtags: ['two words'] }],
    ['a hashtag that is not a string', { ...ok, hashtags: [3] }],
    ['a cta that is not a string', { ...ok, cta: 5 }],
  ])('refuses %s', (_name, reply) => {
    expect(() => captionDraft(reply, 'r', 'en')).toThrow(ReplyShapeError);
  });

  it('refuses content that is not a JSON object', () => {
    expect(() => replyObject('[1,2]')).toThrow(ReplyShapeError);
    expect(() => replyObject('Sure!')).toThrow(ReplyShapeError);
    expect(() => replyObject(undefined)).toThrow(ReplyShapeError);
  });

  it('refuses variants with a style not asked for, a repeated style or a missing one', () => {
    expect(() => captionVariants({ variants: [{ ...ok, style: 'punchy' }, { ...ok, style: 'punchy' }] }, ['punchy', 'cta-led'], 'en')).toThrow(ReplyShapeError);
    expect(() => captionVariants({ variants: [{ ...ok, style: 'story-led' }] }, ['punchy'], 'en')).toThrow(ReplyShapeError);
    expect(() => captionVariants({ variants: [{ ...ok, style: 'punchy' }] }, ['punchy', 'cta-led'], 'en')).toThrow(ReplyShapeError);
  });

  const slots: WeekSlot[] = [
    { day: 0, slot: 0, platform: 'instagram', contentType: 'single' },
    { day: 1, slot: 0, platform: 'tiktok', contentType: 'short' },
  ];
  const post = (day: number, platform: string) => ({ ...ok, day, slot: 0, platform, content_type: 'whatever', image_prompt: 'a photo' });

  it('takes content types from the plan, not the model', () => {
    const posts = weekPosts({ posts: [post(1, 'tiktok'), post(0, 'instagram')] }, slots, 'de');
    expect(posts.map((p) => [p.day, p.contentType, p.language])).toEqual([
      [0, 'single', 'de'],
      [1, 'short', 'de'],
    ]);
  });

  it.each([
    ['a day out of range', { posts: [post(0, 'instagram'), post(7, 'tiktok')] }],
    ['a platform not planned for the slot', { posts: [post(0, 'instagram'), post(1, 'youtube')] }],
    ['the same slot twice', { posts: [post(0, 'instagram'), post(0, 'instagram')] }],
    ['a post too few', { posts: [post(0, 'instagram')] }],
    ['a missing image prompt', { posts: [post(0, 'instagram'), { ...post(1, 'tiktok'), image_prompt: '' }] }],
  ])('refuses a plan with %s', (_name, reply) => {
    expect(() => weekPosts(reply, slots, 'en')).toThrow(ReplyShapeError);
  });
});

describe('reply text checks', () => {
  it('trims, unquotes, drops a leading "Name:" and cuts to the limit', () => {
    expect(replyText('\n "Luna: “So glad you asked!”" ', 'Luna', 280)).toBe('So glad you asked!');
    expect(replyText('luna: Thanks!', 'Luna', 280)).toBe('Thanks!');
    expect(replyText('Water daily in summer, weekly in spring', 'Luna', 25)).toBe('Water daily in summer…');
  });

  it.each([
    ['no text content', undefined],
    ['an empty reply', '  ""  '],
    ['only the name', 'Luna:'],
    ['a link', 'Find it at https://shop.example'],
  ])('refuses %s', (_name, content) => {
    expect(() => replyText(content, 'Luna', 280)).toThrow(ReplyShapeError);
  });
});
