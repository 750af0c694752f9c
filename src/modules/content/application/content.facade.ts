import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { ContentItem } from '../domain/content-item.js';
import { nextStatus } from '../domain/content-status.js';
import { ContentItemRepository } from '../infrastructure/content-item.repository.js';
import { CalendarPosts, type CalendarPostsSource } from './calendar-posts.js';
import { ContentViews, type ItemBody } from './content-views.js';

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

  /** The item's wire body with its current job (contract §6). */
  body(workspaceId: string, item: ContentItem, tx?: Tx): Promise<ItemBody> {
    return this.views.body(workspaceId, item, tx);
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

  /** Publishes `content.updated` for the items as they are now; call after your transaction committed. */
  announce(workspaceId: string, ...ids: string[]): Promise<void> {
    return this.views.changed(workspaceId, ...ids);
  }

  /** Lets the publishing context show its scheduled posts on the content calendar. */
  provideCalendarPosts(source: CalendarPostsSource): void {
    this.calendarPosts.provide(source);
  }
}
