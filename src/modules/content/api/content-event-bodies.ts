import { Injectable, OnModuleInit } from '@nestjs/common';
import type { OutboxEvent } from '../../../core/index.js';
import { OutboxEventBodies, unlessGone, type EventBody, type EventBodyRenderer } from '../../../platform/outbox/index.js';
import { MediaUrls } from '../../../platform/storage/index.js';
import { ContentQueryService } from '../application/content-query.service.js';
import { toItemBody } from './dto/content-item.body.js';

/**
 * The body of `content.ready` and `content.approved`: the item as GET /content/{id} answers it
 * (its `item`, with its current job), read when the event is sent, media URLs signed as that route
 * signs them. Null when the item is gone.
 */
@Injectable()
export class ContentEventBodies implements EventBodyRenderer, OnModuleInit {
  readonly types = ['content.ready', 'content.approved'] as const;

  constructor(
    private readonly bodies: OutboxEventBodies,
    private readonly query: ContentQueryService,
    private readonly urls: MediaUrls,
  ) {}

  onModuleInit(): void {
    this.bodies.register(this);
  }

  async render(event: OutboxEvent): Promise<EventBody | null> {
    if ((event.type !== 'content.ready' && event.type !== 'content.approved') || !event.workspaceId) return null;
    const view = await unlessGone(this.query.get(event.workspaceId, event.payload.contentId));
    return view ? toItemBody(view, this.urls) : null;
  }
}
