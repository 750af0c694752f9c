import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Jobs, toJobBody } from '../../../platform/queue/index.js';
import { toContentItemBody } from '../api/dto/content-item.body.js';
import type { ContentItem } from '../domain/content-item.js';
import { nextStatus } from '../domain/content-status.js';
import { reviewMedia } from '../domain/media-review.js';
import { ContentItemRepository, type ContentItemChanges } from '../infrastructure/content-item.repository.js';
import type { Ordered } from './content-generation.service.js';
import { ContentViews, type ItemBody } from './content-views.js';
import { GenerationOrders } from './generation-orders.js';

/**
 * Moderation of a character's content: approve, reject, regenerate and per-medium review. Each
 * runs under the item's row lock and checks the state machine first, so a refused action
 * changes nothing.
 */
@Injectable()
export class ModerationService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly items: ContentItemRepository,
    private readonly orders: GenerationOrders,
    private readonly jobs: Jobs,
    private readonly views: ContentViews,
  ) {}

  approve(workspaceId: string, characterId: string, contentId: string): Promise<ItemBody> {
    return this.change(workspaceId, characterId, contentId, (item) => ({ status: nextStatus(item.status, 'approve'), rejectionReason: null }));
  }

  reject(workspaceId: string, characterId: string, contentId: string, reason?: string): Promise<ItemBody> {
    return this.change(workspaceId, characterId, contentId, (item) => ({ status: nextStatus(item.status, 'reject'), rejectionReason: reason ?? null }));
  }

  reviewMedium(workspaceId: string, characterId: string, contentId: string, index: number, decision: 'approve' | 'reject'): Promise<ItemBody> {
    return this.change(workspaceId, characterId, contentId, (item) => {
      const outcome = reviewMedia(item, index, decision);
      return { media: outcome.media, status: outcome.status, ...(outcome.itemApproved ? { rejectionReason: null } : {}) };
    });
  }

  /** A new job and a new charge; the item waits in the queue again. */
  async regenerate(workspaceId: string, characterId: string, contentId: string): Promise<Ordered> {
    const { item, job } = await inTransaction(this.ds, async (tx) => {
      const current = await this.load(tx, workspaceId, characterId, contentId);
      const status = nextStatus(current.status, 'regenerate');
      const ordered = await this.orders.order(tx, current);
      const changes: ContentItemChanges = { status, jobId: ordered.id, rejectionReason: null, updatedAt: new Date() };
      await this.items.update(tx, workspaceId, contentId, changes);
      return { item: { ...current, ...changes }, job: ordered };
    });
    const body = toContentItemBody(item, job);
    await this.jobs.enqueue(job);
    await this.views.announce(workspaceId, body);
    return { item: body, job: toJobBody(job) };
  }

  private async change(
    workspaceId: string,
    characterId: string,
    contentId: string,
    decide: (item: ContentItem) => ContentItemChanges,
  ): Promise<ItemBody> {
    const body = await inTransaction(this.ds, async (tx) => {
      const current = await this.load(tx, workspaceId, characterId, contentId);
      const changes = { ...decide(current), updatedAt: new Date() };
      await this.items.update(tx, workspaceId, contentId, changes);
      return this.views.body(workspaceId, { ...current, ...changes }, tx);
    });
    await this.views.announce(workspaceId, body);
    return body;
  }

  /** The item under lock; one of another character (or workspace) is answered as missing. */
  private async load(tx: Tx, workspaceId: string, characterId: string, contentId: string): Promise<ContentItem> {
    const item = await this.items.find(tx, workspaceId, contentId, { lock: true });
    if (!item || item.characterId !== characterId) throw AppError.notFound('Content');
    return item;
  }
}
