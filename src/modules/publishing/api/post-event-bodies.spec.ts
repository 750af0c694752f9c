import { describe, expect, it } from '@jest/globals';
import { AppError, type OutboxEvent } from '../../../core/index.js';
import { OutboxEventBodies } from '../../../platform/outbox/index.js';
import { toScheduledPostBody } from '../application/post-events.js';
import type { ScheduleService } from '../application/schedule.service.js';
import type { ScheduledPost } from '../domain/scheduled-post.js';
import { PostEventBodies } from './post-event-bodies.js';

const WS = 'ws_1';
const at = new Date('2026-11-27T10:00:00Z');
const post: ScheduledPost = {
  id: 'sch_1', workspaceId: WS, contentId: 'cnt_1', characterId: 'char_1', platform: 'photo_share', platformKey: 'instagram', status: 'published',
  scheduledAt: at, dueAt: at, nextAttemptAt: null, attempts: 1, claimId: null, claimedAt: null, callStartedAt: at, remoteHandle: null,
  publishedAt: at, remotePostId: 'ig_1', remoteUrl: 'https://instagram.test/p/ig_1', mediaUrls: ['https://media.test/a.png'], error: null, createdAt: at, updatedAt: at,
};

function setUp() {
  const bodies = new OutboxEventBodies();
  const schedule = {
    get: async (ws: string, id: string) => {
      if (ws !== WS || id !== post.id) throw AppError.notFound('Scheduled post');
      return post;
    },
  } as unknown as ScheduleService;
  new PostEventBodies(bodies, schedule).onModuleInit();
  return bodies;
}

const event = (type: 'post.published' | 'post.failed', postId: string, workspaceId = WS) =>
  ({ id: 'evt_1', type, workspaceId, payload: { postId, platform: 'photo_share' }, occurredAt: new Date() }) as OutboxEvent;

describe('post event bodies', () => {
  it('render the scheduled post as the schedule routes answer it (their builder), for both types', async () => {
    const bodies = setUp();
    expect(await bodies.render(event('post.published', 'sch_1'))).toEqual(toScheduledPostBody(post));
    expect(await bodies.render(event('post.failed', 'sch_1'))).toEqual(toScheduledPostBody(post));
  });

  it('answer null for a post gone, or of another workspace', async () => {
    const bodies = setUp();
    expect(await bodies.render(event('post.published', 'sch_2'))).toBeNull();
    expect(await bodies.render(event('post.published', 'sch_1', 'ws_2'))).toBeNull();
  });
});
