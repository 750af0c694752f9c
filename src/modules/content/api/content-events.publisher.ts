import { Injectable, Logger } from '@nestjs/common';
import { RealtimePublisher } from '../../../platform/realtime/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { ContentEvents, type ItemView } from '../application/content-views.js';
import { toContentItemBody } from './dto/content-item.body.js';

/** `content.updated` socket events with the item's wire body; a failed publish is logged, never thrown. */
@Injectable()
export class ContentEventsPublisher extends ContentEvents {
  private readonly logger = new Logger('Content');

  constructor(
    private readonly publisher: RealtimePublisher,
    private readonly urls: MediaUrls,
  ) {
    super();
  }

  async itemChanged(workspaceId: string, { item, job }: ItemView): Promise<void> {
    try {
      await this.publisher.publish(workspaceId, { type: 'content.updated', item: toContentItemBody(item, job, this.urls) });
    } catch (err) {
      this.logger.warn({ msg: 'content event not published', workspace_id: workspaceId, content_id: item.id, err: String(err) });
    }
  }
}
