import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { inTransaction } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import type { BillingEvent } from './ports/payment-gateway.js';

/**
 * Takes a verified provider event in: each event id once (a replay or a concurrent duplicate
 * changes nothing), recorded with its outbox entry in one transaction, so the work it asks for is
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
  accept(event: BillingEvent): Promise<boolean> {
    return inTransaction(this.ds, async (tx) => {
      const fresh: unknown[] = await tx.query(
        'INSERT INTO billing_events (id, type, object_id) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id',
        [event.id, event.type, event.objectId],
      );
      if (fresh.length === 0) return false;
      await this.outbox.record(tx, {
        type: 'billing.provider_event',
        workspaceId: null,
        payload: { eventId: event.id, eventType: event.type, objectType: event.objectType, objectId: event.objectId },
      });
      return true;
    });
  }
}
