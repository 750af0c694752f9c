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
  /**
   * Optional: an SQL condition that holds when this subscriber has something to do with an event,
   * over `:workspace_id` and `:type` (e.g. an endpoint subscribed to it). An event every subscriber
   * of its type would ignore is not written at all, inside the producer's own statement: most
   * workspaces have no webhook endpoint, and their events then cost the outbox nothing.
   */
  interest?: string;
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
    if (subscriber.interest !== undefined && /\$\d/.test(subscriber.interest)) throw new Error(`outbox subscriber "${subscriber.name}": its interest binds :workspace_id and :type, not positional parameters`);
    this.byName.set(subscriber.name, subscriber);
  }

  /** The subscribers of `type`, in registration order. */
  of(type: string): OutboxSubscriber[] {
    return [...this.byName.values()].filter((s) => (s.types as readonly string[]).includes(type));
  }

  /**
   * The condition under which an event of `type` is worth writing, with `:workspace_id` and `:type`
   * still to bind, or null when it always is (a subscriber without an `interest`, or none at all:
   * an event nobody handles yet is kept for the subscriber a later release adds).
   */
  interestIn(type: string): string | null {
    const subscribers = this.of(type);
    if (subscribers.length === 0 || subscribers.some((s) => s.interest === undefined)) return null;
    return subscribers.map((s) => `(${s.interest})`).join(' OR ');
  }

  get size(): number {
    return this.byName.size;
  }
}
