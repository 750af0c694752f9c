import { Injectable, OnModuleInit } from '@nestjs/common';
import type { OutboxEvent } from '../../../core/index.js';
import { OutboxEventBodies, type EventBody, type EventBodyRenderer } from '../../../platform/outbox/index.js';
import { creditsLowBody } from './dto/billing.dto.js';

/**
 * The body of `credits.low`: the alert as it was raised (threshold, remaining, granted, balance,
 * resets_at), the `credits` of the socket event of the same name, documented as `CreditsLowBody`.
 * An alert is a fact of its moment: GET /billing/credits answers the balance now, not what crossed.
 */
@Injectable()
export class CreditEventBodies implements EventBodyRenderer, OnModuleInit {
  readonly types = ['credits.low'] as const;

  constructor(private readonly bodies: OutboxEventBodies) {}

  onModuleInit(): void {
    this.bodies.register(this);
  }

  async render(event: OutboxEvent): Promise<EventBody | null> {
    return event.type === 'credits.low' ? creditsLowBody(event.payload) : null;
  }
}
