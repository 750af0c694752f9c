import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ComposedStatement } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import type { BillingEvent } from './ports/payment-gateway.js';

/**
 * Takes a verified provider event in: each event id once (a replay or a concurrent duplicate
 * changes nothing), recorded with its outbox entry in one statement, so the work it asks for is
 * done after commit, at least once, by whichever process claims it (`BillingSync`). The Stripe
 * webhook route and the sandbox's pages both come in here.
 */
@Injectable()
export class BillingEventIntake {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly outbox: Outbox,
  ) {}

  /** Answers whether the event was new. */
  async accept(event: BillingEvent): Promise<boolean> {
    const statement = new ComposedStatement().with('fresh', (p) =>
      `INSERT INTO billing_events (id, type, object_id) VALUES (${p.bind(event.id)}, ${p.bind(event.type)}, ${p.bind(event.objectId)})
       ON CONFLICT (id) DO NOTHING RETURNING id`);
    this.outbox.addTo(statement, {
      type: 'billing.provider_event',
      workspaceId: null,
      payload: { eventId: event.id, eventType: event.type, objectType: event.objectType, objectId: event.objectId },
    }, 'fresh');
    const rows = await statement.run<{ fresh: number }>(this.ds, 'SELECT count(*)::int AS fresh FROM fresh');
    const fresh = rows[0].fresh === 1;
    if (fresh) this.outbox.recordedElsewhere();
    return fresh;
  }
}
