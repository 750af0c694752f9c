import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { Jobs } from '../../../platform/queue/index.js';
import type { ContentItem, ContentStatus, StoredMedia } from '../domain/content-item.js';
import { nextStatus } from '../domain/content-status.js';
import { ContentItemRepository, type ContentItemChanges } from '../infrastructure/content-item.repository.js';
import type { Ordered } from './content-generation.service.js';
import { ContentViews, type ItemView } from './content-views.js';
import { GenerationOrders } from './generation-orders.js';
import { recordStatusEvent } from './status-events.js';

/** What a review decides for an item: its status, and its media's review marks or the rejection reason. */
export interface ReviewChange {
  status: ContentStatus;
  media?: StoredMedia[];
  rejectionReason?: string | null;
}

/** Writes what a review decided (the audit entry) in the review's own transaction. */
export type ReviewRecorder = (tx: Tx, before: ContentItem, change: ReviewChange) => Promise<void>;

/**
 * The changes review drives on a character's item, each under the item's row lock: a decision
 * taken by `decide` on the item as locked (it throws to refuse, and nothing changes), and
 * regeneration. An item of another character or workspace is answered as missing.
 */
@Injectable()
export class ItemReviews {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly items: ContentItemRepository,
    private readonly orders: GenerationOrders,
    private readonly jobs: Jobs,
    private readonly views: ContentViews,
    private readonly outbox: Outbox,
  ) {}

  async review(workspaceId: string, characterId: string, contentId: string, decide: (item: ContentItem) => ReviewChange, record?: ReviewRecorder): Promise<ItemView> {
    const view = await inTransaction(this.ds, async (tx) => {
      const current = await this.load(tx, workspaceId, characterId, contentId);
      const decided = decide(current);
      const changes: ContentItemChanges = { ...decided, updatedAt: new Date() };
      await this.items.update(tx, workspaceId, contentId, changes);
      // An approval (by the route, or by the last medium approved) is a customer event, in this transaction.
      await recordStatusEvent(this.outbox, tx, current, current.status, decided.status);
      await record?.(tx, current, decided);
      return this.views.view(workspaceId, { ...current, ...changes }, tx);
    });
    await this.views.announce(workspaceId, view);
    return view;
  }

  /** A new job and a new charge; the item waits in the queue again. */
  async regenerate(workspaceId: string, characterId: string, contentId: string): Promise<Ordered> {
    const ordered = await inTransaction(this.ds, async (tx) => {
      const current = await this.load(tx, workspaceId, characterId, contentId);
      const status = nextStatus(current.status, 'regenerate');
      const job = await this.orders.order(tx, current);
      const changes: ContentItemChanges = { status, jobId: job.id, rejectionReason: null, updatedAt: new Date() };
      await this.items.update(tx, workspaceId, contentId, changes);
      return { item: { ...current, ...changes }, job };
    });
    const job = { ...ordered.job };
    await this.jobs.enqueue(ordered.job);
    await this.views.announce(workspaceId, { item: ordered.item, job });
    return { item: ordered.item, job };
  }

  private async load(tx: Tx, workspaceId: string, characterId: string, contentId: string): Promise<ContentItem> {
    const item = await this.items.find(tx, workspaceId, contentId, { lock: true });
    if (!item || item.characterId !== characterId) throw AppError.notFound('Content');
    return item;
  }
}
