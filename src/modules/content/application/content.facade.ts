import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { CharactersFacade } from '../../characters/index.js';
import type { GeneratedMedia } from '../../generation/index.js';
import { newContentItem, type ContentItem } from '../domain/content-item.js';
import { nextStatus } from '../domain/content-status.js';
import { ContentItemRepository } from '../infrastructure/content-item.repository.js';
import { CalendarPosts, type CalendarPostsSource } from './calendar-posts.js';
import type { Ordered } from './content-generation.service.js';
import { ContentViews, type ItemView } from './content-views.js';
import { ItemReviews, type ReviewChange, type ReviewRecorder } from './item-reviews.js';
import { MediaStore } from './media-store.js';
import { recordStatusEvent } from './status-events.js';

/** A finished video to publish as content (see `addFinishedVideo`). */
export interface FinishedVideo {
  workspaceId: string;
  characterId: string;
  platform: string;
  prompt: string;
  caption: string | null;
  aspectRatio: string;
  durationSeconds: number;
  video: GeneratedMedia;
  thumbnail?: GeneratedMedia;
  /** The job that made it: the media keys name it. */
  sourceJobId: string;
}

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
    private readonly media: MediaStore,
    private readonly characters: CharactersFacade,
    private readonly outbox: Outbox,
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

  /**
   * A video made elsewhere (a talking head) as a new item: its files copied under the item's own
   * keys, `ready` (`approved` under autopilot), so moderation, scheduling and publishing take it
   * like any video, with its `content.ready` (`content.approved`) event. Call `announce` with its id once the caller is done.
   */
  async addFinishedVideo(req: FinishedVideo): Promise<ContentItem> {
    const id = newId('cnt');
    const now = new Date();
    const medium = await this.media.saveVideo(id, req.sourceJobId, { video: req.video, thumbnail: req.thumbnail }, {
      width: req.video.width ?? 0, height: req.video.height ?? 0, durationSeconds: req.durationSeconds,
    });
    const character = await this.characters.find(req.workspaceId, req.characterId);
    const base = newContentItem({
      id, workspaceId: req.workspaceId, characterId: req.characterId, platform: req.platform, contentType: 'video', kind: 'video',
      imagePrompt: req.prompt, caption: req.caption, video: { durationSeconds: req.durationSeconds, aspectRatio: req.aspectRatio },
    }, now);
    const item: ContentItem = { ...base, status: nextStatus('generating', 'finish', { autopilot: character?.autopilot ?? false }), media: [medium], mediaJobId: req.sourceJobId };
    await inTransaction(this.ds, async (tx) => {
      await this.items.insert(tx, item);
      await recordStatusEvent(this.outbox, tx, item, null, item.status);
      await this.characters.addContent(tx, req.workspaceId, req.characterId);
    });
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
   * sees the item as locked and throws to refuse; `record`, when given, runs in the same
   * transaction once the change is written. Another character's item is 404.
   */
  review(workspaceId: string, characterId: string, contentId: string, decide: (item: ContentItem) => ReviewChange, record?: ReviewRecorder): Promise<ItemView> {
    return this.reviews.review(workspaceId, characterId, contentId, decide, record);
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
