import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Tx } from '../../../platform/database/index.js';
import { Jobs, type JobRecord } from '../../../platform/queue/index.js';
import type { ContentItem } from '../domain/content-item.js';
import { ContentItemRepository } from '../infrastructure/content-item.repository.js';
import { outages } from '../../../platform/health/index.js';

/** An item with its current job: what reads and changes of content answer (contract §6). */
export interface ItemView {
  item: ContentItem;
  job: JobRecord | null;
}

/**
 * Where changes of content are announced (`content.updated` on the socket). The adapter in `api/`
 * builds the wire body. Announcing never fails the change: a lost event costs a client a poll.
 */
export abstract class ContentEvents {
  abstract itemChanged(workspaceId: string, view: ItemView): Promise<void>;
}

/** The job ids items point at, for one batched read. */
export function jobIdsOf(items: ReadonlyArray<{ jobId: string | null }>): string[] {
  return items.flatMap((i) => (i.jobId ? [i.jobId] : []));
}

/** Items with their current jobs, for answers and for events published after the change committed. */
@Injectable()
export class ContentViews {
  private readonly logger = new Logger('Content');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly items: ContentItemRepository,
    private readonly jobs: Jobs,
    private readonly events: ContentEvents,
  ) {}

  async view(workspaceId: string, item: ContentItem, m: Tx = this.ds.manager): Promise<ItemView> {
    return (await this.views(workspaceId, [item], m))[0];
  }

  async views(workspaceId: string, items: ContentItem[], m: Tx = this.ds.manager): Promise<ItemView[]> {
    const jobs = await this.jobs.getMany(workspaceId, jobIdsOf(items), m);
    return items.map((item) => ({ item, job: item.jobId ? (jobs.get(item.jobId) ?? null) : null }));
  }

  /** Announces the items as they are now; call after the transaction that changed them committed. */
  async changed(workspaceId: string, ...itemIds: string[]): Promise<void> {
    try {
      for (const id of itemIds) {
        const item = await this.items.find(this.ds.manager, workspaceId, id);
        if (item) await this.announce(workspaceId, await this.view(workspaceId, item));
      }
    } catch (err) {
      if (!(await outages.covers(err))) this.logger.warn({ msg: 'content event not published', workspace_id: workspaceId, err: String(err) });
    }
  }

  announce(workspaceId: string, view: ItemView): Promise<void> {
    return this.events.itemChanged(workspaceId, view);
  }
}
