import { Injectable, OnModuleInit } from '@nestjs/common';
import type { OutboxEvent } from '../../../core/index.js';
import { OutboxEventBodies, unlessGone, type EventBody, type EventBodyRenderer } from '../../../platform/outbox/index.js';
import { toScheduledPostBody } from '../application/post-events.js';
import { ScheduleService } from '../application/schedule.service.js';

/**
 * The body of `post.published` and `post.failed`: the scheduled post as the schedule routes answer
 * it (GET /schedule/{id}'s `scheduled_post`, the same in GET /schedule and /schedule/history), read
 * when the event is sent. Null when the post is gone (its character was deleted).
 */
@Injectable()
export class PostEventBodies implements EventBodyRenderer, OnModuleInit {
  readonly types = ['post.published', 'post.failed'] as const;

  constructor(
    private readonly bodies: OutboxEventBodies,
    private readonly schedule: ScheduleService,
  ) {}

  onModuleInit(): void {
    this.bodies.register(this);
  }

  async render(event: OutboxEvent): Promise<EventBody | null> {
    if ((event.type !== 'post.published' && event.type !== 'post.failed') || !event.workspaceId) return null;
    const post = await unlessGone(this.schedule.get(event.workspaceId, event.payload.postId));
    return post ? toScheduledPostBody(post) : null;
  }
}
