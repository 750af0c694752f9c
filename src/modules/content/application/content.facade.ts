import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { ContentItem } from '../domain/content-item.js';
import { nextStatus } from '../domain/content-status.js';
import { ContentItemRepository } from '../infrastructure/content-item.repository.js';
import { CalendarPosts, type CalendarPostsSource } from './calendar-posts.js';
import type { Ordered } from './content-generation.service.js';
import { ContentViews, type ItemView } from './content-views.js';
import { ItemReviews, type ReviewChange } from './item-reviews.js';

/**
 * What other contexts (publishing, scheduling) may do with content. Methods taking `tx` run in
 * the caller's transaction (pass it whenever you hold one: PGlite runs one transaction at a
 * time); after that transaction commits, call `announce` so sockets see the change.
 */
@Injectable()
export class ContentFacade {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly items: ContentItemRepository,
    private readonly views: ContentViews,
    private readonly calendarPosts: CalendarPosts,
    private readonly reviews: ItemReviews,
  ) {}

  /** The item, or 404 `not_found` when it does not exist or belongs to another workspace. */
  async get(workspaceId: string, id: string, tx?: Tx): Promise<ContentItem> {
    const item = await this.items.find(tx ?? this.ds.manager, workspaceId, id);
    if (!item) throw AppError.notFound('Content');
    return item;
  }

  /** Like `get`, and locks the row until `tx` ends. */
  async getForUpdate(tx: Tx, workspaceId: string, id: string): Promise<ContentItem> {
    const item = await this.items.find(tx, workspaceId, id, { lock: true });
    if (!item) throw AppError.notFound('Content');
    return item;
  }

  /** The item with its current job. */
  view(workspaceId: string, item: ContentItem, tx?: Tx): Promise<ItemView> {
    return this.views.view(workspaceId, item, tx);
  }

  /**
   * approved → published: records when, and locks the caption variants. Publishing an item that
   * is already published only moves nothing (a second platform's post); any other status is 409.
   */
  async markPublished(tx: Tx, workspaceId: string, id: string, at: Date): Promise<ContentItem> {
    const item = await this.getForUpdate(tx, workspaceId, id);
    if (item.status === 'published') {
      if (!item.variantsLocked) await this.items.update(tx, workspaceId, id, { variantsLocked: true });
      return { ...item, variantsLocked: true };
    }
    const changes = { status: nextStatus(item.status, 'publish'), publishedAt: at, variantsLocked: true, updatedAt: new Date() };
    await this.items.update(tx, workspaceId, id, changes);
    return { ...item, ...changes };
  }

  /** Approved items, oldest planned first; the caller leaves out the ones it has scheduled. */
  async listApproved(workspaceId: string, opts: { characterId?: string; excludeIds?: readonly string[]; limit?: number } = {}, tx?: Tx): Promise<ContentItem[]> {
    const exclude = new Set(opts.excludeIds ?? []);
    const limit = opts.limit ?? 500;
    const found = await this.items.listByStatus(tx ?? this.ds.manager, workspaceId, {
      statuses: ['approved'], characterId: opts.characterId, limit: limit + exclude.size,
    });
    return found.filter((i) => !exclude.has(i.id)).slice(0, limit);
  }

  /**
   * Applies a review decision to a character's item under its row lock and announces it: `decide`
   * sees the item as locked and throws to refuse. Another character's item is 404.
   */
  review(workspaceId: string, characterId: string, contentId: string, decide: (item: ContentItem) => ReviewChange): Promise<ItemView> {
    return this.reviews.review(workspaceId, characterId, contentId, decide);
  }

  /** Generates a character's item again: a new job and a new charge (402 when short). */
  regenerate(workspaceId: string, characterId: string, contentId: string): Promise<Ordered> {
    return this.reviews.regenerate(workspaceId, characterId, contentId);
  }

  /** Publishes `content.updated` for the items as they are now; call after your transaction committed. */
  announce(workspaceId: string, ...ids: string[]): Promise<void> {
    return this.views.changed(workspaceId, ...ids);
  }

  /** Lets the publishing context show its scheduled posts on the content calendar. */
  provideCalendarPosts(source: CalendarPostsSource): void {
    this.calendarPosts.provide(source);
  }
}
