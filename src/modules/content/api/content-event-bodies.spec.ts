import { describe, expect, it } from '@jest/globals';
import { AppError, type OutboxEvent } from '../../../core/index.js';
import { OutboxEventBodies } from '../../../platform/outbox/index.js';
import type { MediaUrls } from '../../../platform/storage/index.js';
import type { ContentQueryService } from '../application/content-query.service.js';
import type { ItemView } from '../application/content-views.js';
import { newContentItem } from '../domain/content-item.js';
import { ContentEventBodies } from './content-event-bodies.js';
import { toItemBody } from './dto/content-item.body.js';

const WS = 'ws_1';
const urls = { sign: (key: string) => `https://media.test/${key}?sig=x`, signOrNull: (key: string | null) => (key ? `https://media.test/${key}?sig=x` : null) } as unknown as MediaUrls;
const item = {
  ...newContentItem({ id: 'cnt_1', workspaceId: WS, characterId: 'char_1', platform: 'instagram', contentType: 'single', kind: 'image', imagePrompt: 'a beach' }, new Date('2026-11-27T10:00:00Z')),
  status: 'ready' as const,
  media: [{ index: 0, kind: 'image' as const, key: 'content/cnt_1/0.png', width: 1024, height: 1024, reviewStatus: 'pending' as const }],
};
const view = { item, job: null } as unknown as ItemView;

function setUp() {
  const bodies = new OutboxEventBodies();
  const query = {
    get: async (ws: string, id: string) => {
      if (ws !== WS || id !== item.id) throw AppError.notFound('Content');
      return view;
    },
  } as unknown as ContentQueryService;
  new ContentEventBodies(bodies, query, urls).onModuleInit();
  return bodies;
}

const event = (type: 'content.ready' | 'content.approved', contentId: string, workspaceId = WS) =>
  ({ id: 'evt_1', type, workspaceId, payload: { contentId, characterId: 'char_1' }, occurredAt: new Date() }) as OutboxEvent;

describe('content event bodies', () => {
  it('render the item as GET /content/{id} answers it (its builder, media signed), for both types', async () => {
    const bodies = setUp();
    expect(await bodies.render(event('content.ready', 'cnt_1'))).toEqual(toItemBody(view, urls));
    expect(await bodies.render(event('content.approved', 'cnt_1'))).toEqual(toItemBody(view, urls));
  });

  it('answer null for an item deleted since, or of another workspace', async () => {
    const bodies = setUp();
    expect(await bodies.render(event('content.ready', 'cnt_2'))).toBeNull();
    expect(await bodies.render(event('content.ready', 'cnt_1', 'ws_2'))).toBeNull();
  });
});
