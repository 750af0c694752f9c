import { Injectable, OnModuleInit } from '@nestjs/common';
import type { OutboxEvent } from '../../core/index.js';
// The registry itself, not the outbox's index: that one reaches the dispatcher, which imports this queue.
import { OutboxEventBodies, type EventBody, type EventBodyRenderer } from '../outbox/event-bodies.js';
import { MediaUrls } from '../storage/index.js';
import { toJobBody } from './job-body.js';
import { JobsService } from './jobs.service.js';

/**
 * The body of `job.completed` and `job.failed`: the job as GET /jobs/{id} answers it (its `job`),
 * read when the event is sent, the files it made signed as that route signs them. Null when gone.
 */
@Injectable()
export class JobEventBodies implements EventBodyRenderer, OnModuleInit {
  readonly types = ['job.completed', 'job.failed'] as const;

  constructor(
    private readonly bodies: OutboxEventBodies,
    private readonly jobs: JobsService,
    private readonly urls: MediaUrls,
  ) {}

  onModuleInit(): void {
    this.bodies.register(this);
  }

  async render(event: OutboxEvent): Promise<EventBody | null> {
    if ((event.type !== 'job.completed' && event.type !== 'job.failed') || !event.workspaceId) return null;
    const job = await this.jobs.get(event.workspaceId, event.payload.jobId);
    return job ? { ...toJobBody(job, this.urls) } : null;
  }
}
