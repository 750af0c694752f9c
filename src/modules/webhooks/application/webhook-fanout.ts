import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { WEBHOOK_EVENT_TYPES, type OutboxEvent } from '../../../core/index.js';
import { OutboxEventBodies, OutboxSubscribers } from '../../../platform/outbox/index.js';
import { Wakeups } from '../../../platform/redis/redis.module.js';
import { envelope, snakeCased } from '../domain/webhook-rules.js';
import { WebhooksRepository } from '../infrastructure/webhooks.repository.js';
import { WEBHOOK_DELIVERY_WAKEUP } from './delivery-wake.js';

/**
 * The outbox subscriber `webhooks`: for each customer event, one delivery per enabled endpoint of
 * its workspace subscribed to its type. The body is rendered once (the REST resource as it reads
 * now, or the payload's facts when no renderer knows the type or the resource is gone) and kept
 * with each delivery, so every retry sends the same bytes. Idempotent: a delivery per endpoint and
 * event is unique, so an event handed over twice fans out once.
 */
/** An event is worth writing for webhooks only when an enabled endpoint of its workspace takes its type. */
const SUBSCRIBED_ENDPOINT = `EXISTS (${WebhooksRepository.SUBSCRIBED_ENDPOINT})`;

@Injectable()
export class WebhookFanout implements OnModuleInit {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly subscribers: OutboxSubscribers,
    private readonly bodies: OutboxEventBodies,
    private readonly repo: WebhooksRepository,
    private readonly wakeups: Wakeups,
  ) {}

  onModuleInit(): void {
    this.subscribers.register({ name: 'webhooks', types: WEBHOOK_EVENT_TYPES, handle: (event) => this.handle(event), interest: SUBSCRIBED_ENDPOINT });
  }

  async handle(event: OutboxEvent): Promise<void> {
    if (!event.workspaceId) return;
    const endpoints = await this.repo.subscribed(event.workspaceId, event.type);
    if (endpoints.length === 0) return;
    const rendered = await this.bodies.render(event);
    const data = (rendered ?? snakeCased(event.payload)) as Record<string, unknown>;
    const body = envelope({ id: event.id, type: event.type, occurredAt: event.occurredAt, workspaceId: event.workspaceId }, data);
    const added = await this.repo.insertDeliveries(endpoints, event.workspaceId, event.id, event.type, body);
    if (added > 0) {
      this.logger.debug({ msg: 'webhook event fanned out', event_id: event.id, type: event.type, workspace_id: event.workspaceId, deliveries: added });
      this.wakeups.signal(WEBHOOK_DELIVERY_WAKEUP);
    }
  }
}
