import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/index.js';
import { newId, type NewOutboxEvent, type OutboxEventType } from '../../core/index.js';
import { SealedBox } from '../crypto/index.js';
import { afterCommit, insertedRows, jsonParam, type ComposedStatement, type Tx } from '../database/index.js';
import { Wakeups } from '../redis/redis.module.js';
import { OutboxSubscribers } from './subscribers.js';

const INSERT = 'INSERT INTO outbox_events (id, type, workspace_id, payload, secret_sealed, available_at)';

/** The name the dispatchers' loop is woken by (see `Wakeups`). */
export const OUTBOX_WAKEUP = 'outbox';

/**
 * Records an event in the caller's transaction: it is delivered after that transaction commits,
 * and never when it rolls back. A context announces a fact here instead of calling whoever cares.
 * A written event wakes the dispatchers, in this process and others, once its transaction commits.
 */
@Injectable()
export class Outbox {
  private readonly box: SealedBox;

  constructor(
    config: AppConfig,
    private readonly subscribers: OutboxSubscribers,
    private readonly wakeups: Wakeups,
  ) {
    this.box = new SealedBox(config.tokenEncryptionKey, 'outbox-secrets');
  }

  /** Writes the event in `tx`, unless no subscriber of its type has an interest in it (see `OutboxSubscriber.interest`). */
  async record<T extends OutboxEventType>(tx: Tx, event: NewOutboxEvent<T>): Promise<string> {
    const id = newId('evt');
    const params = [id, event.type, event.workspaceId, jsonParam(event.payload), event.secret === undefined ? null : this.box.seal(event.secret, id), event.availableAt ?? null];
    const interest = this.interestIn(event.type, '$3', '$2');
    const written = await insertedRows(tx, `${INSERT} SELECT $1, $2, $3, $4, $5, COALESCE($6::timestamptz, now())${interest ? ` WHERE ${interest}` : ''} RETURNING id`, params);
    if (written.length > 0) afterCommit(tx, () => this.wakeups.signal(OUTBOX_WAKEUP));
    return id;
  }

  /**
   * Adds the event's row to a statement another module composes (one round trip instead of a
   * transaction), made only when the part named `onlyIf` answers a row (and a subscriber has an
   * interest in it). Events with a secret go through `record`. Call `recordedElsewhere()` once the
   * statement ran.
   */
  addTo<T extends OutboxEventType>(statement: ComposedStatement, event: NewOutboxEvent<T>, onlyIf: string): void {
    if (event.secret !== undefined || event.availableAt !== undefined) throw new Error('An event with a secret or a send time is recorded with Outbox.record');
    statement.with('outbox_event', (p) => {
      const [workspace, type] = [p.bind(event.workspaceId), p.bind(event.type)];
      const interest = this.interestIn(event.type, workspace, type);
      return `${INSERT} SELECT ${p.bind(newId('evt'))}, ${type}, ${workspace}, ${p.bind(jsonParam(event.payload))}, NULL, now() FROM ${onlyIf}${interest ? ` WHERE ${interest}` : ''}`;
    });
  }

  /** The subscribers' interest in `type` with its placeholders bound to `workspace` and `type`, or null. */
  private interestIn(eventType: string, workspace: string, type: string): string | null {
    return this.subscribers.interestIn(eventType)?.replaceAll(':workspace_id', workspace).replaceAll(':type', type) ?? null;
  }

  /** Wakes a dispatcher after a statement with `addTo` committed. */
  recordedElsewhere(): void {
    this.wakeups.signal(OUTBOX_WAKEUP);
  }

  /** The secret of event `id` as recorded (for the dispatcher). */
  openSecret(sealed: string, id: string): string {
    return this.box.open(sealed, id);
  }
}
