import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../../../platform/database/index.js';
import { RealtimePublisher } from '../../../platform/realtime/index.js';
import { toContentItemBody } from '../api/dto/content-item.body.js';
import type { ContentItem } from '../domain/content-item.js';
import { ContentItemRepository } from '../infrastructure/content-item.repository.js';
import { Jobs } from '../../../platform/queue/index.js';

export type ItemBody = Record<string, unknown>;

/**
 * Item bodies with their current job, for answers and for `content.updated` events. Events are
 * published after the change committed; a lost event only costs a client a poll, so publishing
 * never fails the change.
 */
/** The job ids items point at, for one batched read. */
export function jobIdsOf(items: ReadonlyArray<{ jobId: string | null }>): string[] {
  return items.flatMap((i) => (i.jobId ? [i.jobId] : []));
}

@Injectable()
export class ContentViews {
  private readonly logger = new Logger('Content');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly items: ContentItemRepository,
    private readonly jobs: Jobs,
    private readonly publisher: RealtimePublisher,
  ) {}

  async body(workspaceId: string, item: ContentItem, m: Tx = this.ds.manager): Promise<ItemBody> {
    const jobs = await this.jobs.getMany(workspaceId, jobIdsOf([item]), m);
    return toContentItemBody(item, item.jobId ? (jobs.get(item.jobId) ?? null) : null);
  }

  async bodies(workspaceId: string, items: ContentItem[], m: Tx = this.ds.manager): Promise<ItemBody[]> {
    const jobs = await this.jobs.getMany(workspaceId, jobIdsOf(items), m);
    return items.map((i) => toContentItemBody(i, i.jobId ? (jobs.get(i.jobId) ?? null) : null));
  }

  /** Publishes the items as they are now; call after the transaction that changed them committed. */
  async changed(workspaceId: string, ...itemIds: string[]): Promise<void> {
    try {
      for (const id of itemIds) {
        const item = await this.items.find(this.ds.manager, workspaceId, id);
        if (item) await this.announce(workspaceId, await this.body(workspaceId, item));
      }
    } catch (err) {
      this.logger.warn({ msg: 'content event not published', workspace_id: workspaceId, err: String(err) });
    }
  }

  async announce(workspaceId: string, body: ItemBody): Promise<void> {
    try {
      await this.publisher.publish(workspaceId, { type: 'content.updated', item: body });
    } catch (err) {
      this.logger.warn({ msg: 'content event not published', workspace_id: workspaceId, content_id: body.id, err: String(err) });
    }
  }
}
