import { describe, expect, it } from '@jest/globals';
import { AppError, type NewOutboxEvent } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { Outbox } from '../../../platform/outbox/index.js';
import type { ContentItem, ContentStatus } from '../domain/content-item.js';
import { nextStatus } from '../domain/content-status.js';
import { ItemReviews } from './item-reviews.js';
import { oneItemStore } from './spec-fixtures.js';

const WS = 'ws_1';

/** Review against stand-ins: one item in a store, transactions that hand out a marker, an outbox that records. */
function setUp(status: ContentStatus) {
  const { store, tx, ds, items } = oneItemStore({ workspaceId: WS }, { status });
  const views = { view: async (_ws: string, i: ContentItem) => ({ item: i, job: null }), announce: async () => undefined };
  const recorded: Array<{ tx: Tx; event: NewOutboxEvent }> = [];
  const outbox = { record: async (t: Tx, event: NewOutboxEvent) => void recorded.push({ tx: t, event }) } as unknown as Outbox;
  const reviews = new ItemReviews(ds, items as never, {} as never, {} as never, views as never, outbox);
  return { reviews, recorded, tx, store };
}

const approve = (i: ContentItem) => ({ status: nextStatus(i.status, 'approve'), rejectionReason: null });

describe('ItemReviews: content.approved', () => {
  it('records content.approved in the review\'s transaction when an item is approved', async () => {
    const { reviews, recorded, tx } = setUp('ready');
    await reviews.review(WS, 'char_1', 'cnt_1', approve);
    expect(recorded).toEqual([{ tx, event: { type: 'content.approved', workspaceId: WS, payload: { contentId: 'cnt_1', characterId: 'char_1' } } }]);
  });

  it('records nothing for a second approve (refused), a rejection, or a review that leaves the item approved', async () => {
    const { reviews, recorded, store } = setUp('ready');
    await reviews.review(WS, 'char_1', 'cnt_1', approve);
    await expect(reviews.review(WS, 'char_1', 'cnt_1', approve)).rejects.toBeInstanceOf(AppError);
    await reviews.review(WS, 'char_1', 'cnt_1', (i) => ({ status: i.status, media: [] }));
    await reviews.review(WS, 'char_1', 'cnt_1', (i) => ({ status: nextStatus(i.status, 'reject'), rejectionReason: 'no' }));
    expect(store.current.status).toBe('rejected');
    expect(recorded.map((r) => r.event.type)).toEqual(['content.approved']);
  });

  it('answers another character\'s item as missing, and records nothing', async () => {
    const { reviews, recorded } = setUp('ready');
    await expect(reviews.review(WS, 'char_2', 'cnt_1', approve)).rejects.toMatchObject({ code: 'not_found' });
    expect(recorded).toEqual([]);
  });
});
