import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { OutboxEvent } from '../../../core/index.js';
import { OutboxSubscribers } from '../../../platform/outbox/index.js';
import { RealtimePublisher } from '../../../platform/realtime/index.js';

/**
 * The `credits.low` alert's socket event and log line (its mail goes through the notifications
 * context, subscribed to the same event). A socket event is best-effort, as every socket event is.
 */
@Injectable()
export class CreditAlertNotifier implements OnModuleInit {
  private readonly logger = new Logger('Billing');

  constructor(
    private readonly subscribers: OutboxSubscribers,
    private readonly publisher: RealtimePublisher,
  ) {}

  onModuleInit(): void {
    this.subscribers.register({ name: 'credit-alerts', types: ['credits.low'], handle: (event) => this.handle(event) });
  }

  async handle(event: OutboxEvent): Promise<void> {
    if (event.type !== 'credits.low' || !event.workspaceId) return;
    const p = event.payload;
    this.logger.log({ msg: 'credits low', workspace_id: event.workspaceId, threshold: p.threshold, remaining: p.remaining, granted: p.granted, balance: p.balance });
    await this.publisher
      .publish(event.workspaceId, { type: 'credits.low', credits: { threshold: p.threshold, remaining: p.remaining, granted: p.granted, balance: p.balance, resets_at: p.resetsAt } })
      .catch((err: unknown) => this.logger.warn({ msg: 'credits.low socket event not published', workspace_id: event.workspaceId, err: err instanceof Error ? err.message : String(err) }));
  }
}
