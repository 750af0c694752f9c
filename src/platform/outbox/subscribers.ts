import { Injectable } from '@nestjs/common';
import type { OutboxEvent, OutboxEventType } from '../../core/index.js';

/** What a delivery knows about itself: the attempt number (1 for the first) and whether a failure now is the last. */
export interface DeliveryAttempt {
  attempt: number;
  last: boolean;
}

/**
 * One consumer of outbox events. `handle` is called after the event's transaction committed, at
 * least once; it answers when the event is done for this subscriber and throws to be retried with
 * back-off (throw a `PermanentDeliveryFailure` when retrying cannot help). It must be idempotent:
 * a lease that lapsed mid-delivery hands the same event to it again.
 */
export interface OutboxSubscriber {
  /** Stable: `delivered_to` records it, so renaming a subscriber re-delivers what it had not finished. */
  name: string;
  types: readonly OutboxEventType[];
  handle(event: OutboxEvent, secret: string | undefined, attempt: DeliveryAttempt): Promise<void>;
}

/** A failure no retry can mend (a template without its secret, a recipient gone): the event is given up at once. */
export class PermanentDeliveryFailure extends Error {}

/**
 * The subscribers of outbox events, registered at module init (before the dispatcher starts at
 * bootstrap). Two subscribers of one name stop the boot: their deliveries would be indistinguishable.
 */
@Injectable()
export class OutboxSubscribers {
  private readonly byName = new Map<string, OutboxSubscriber>();

  register(subscriber: OutboxSubscriber): void {
    if (!/^[a-z][a-z0-9_.-]{0,62}$/.test(subscriber.name)) throw new Error(`outbox subscriber name "${subscriber.name}" must be lowercase letters, digits, . _ -`);
    if (this.byName.has(subscriber.name)) throw new Error(`two outbox subscribers are named "${subscriber.name}"`);
    this.byName.set(subscriber.name, subscriber);
  }

  /** The subscribers of `type`, in registration order. */
  of(type: string): OutboxSubscriber[] {
    return [...this.byName.values()].filter((s) => (s.types as readonly string[]).includes(type));
  }

  get size(): number {
    return this.byName.size;
  }
}
