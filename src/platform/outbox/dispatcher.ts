import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../config/index.js';
import type { OutboxEvent, ProcessRole } from '../../core/index.js';
import { outages, withinTime } from '../health/outages.js';
import { ProcessLifecycle } from '../lifecycle/index.js';
import { consumesQueues, QUEUE_ROLE } from '../queue/index.js';
import { settle, type RetryPolicy } from './backoff.js';
import { Wakeups } from '../redis/redis.module.js';
import { PollingLoop } from '../queue/polling-loop.js';
import { Outbox, OUTBOX_WAKEUP } from './outbox.js';
import { OutboxStore, type ClaimedEvent, type Outcome } from './outbox-store.js';
import { OutboxSubscribers, PermanentDeliveryFailure } from './subscribers.js';

/** What one attempt at one event did: subscribers now done, those to retry, and the errors seen. */
export interface AttemptResult {
  delivered: string[];
  retryable: string[];
  errors: string[];
}

/**
 * Runs the subscribers of `event` not yet in its `delivered_to`, each on its own: one failing does
 * not stop the others, and a retry runs only those that failed. A permanent failure counts as done
 * for its subscriber (retrying cannot help) but its error is kept.
 */
export async function attemptDelivery(
  subscribers: OutboxSubscribers,
  event: ClaimedEvent,
  open: () => string | undefined,
  last: boolean,
  timeoutMs: number,
): Promise<AttemptResult> {
  const pending = subscribers.of(event.type).filter((s) => !event.deliveredTo.includes(s.name));
  const result: AttemptResult = { delivered: [], retryable: [], errors: [] };
  let secret: string | undefined;
  try {
    secret = open();
  } catch (err) {
    // A secret that cannot be opened (the key changed) never will be.
    return { delivered: pending.map((s) => s.name), retryable: [], errors: [`secret unreadable: ${String(err)}`] };
  }
  const asEvent = { id: event.id, type: event.type, workspaceId: event.workspaceId, payload: event.payload, occurredAt: event.occurredAt } as OutboxEvent;
  await Promise.all(
    pending.map(async (s) => {
      try {
        await withinTime(s.handle(asEvent, secret, { attempt: event.attempts, last }), timeoutMs);
        result.delivered.push(s.name);
      } catch (err) {
        result.errors.push(`${s.name}: ${err instanceof Error ? err.message : String(err)}`.slice(0, 1000));
        if (err instanceof PermanentDeliveryFailure) result.delivered.push(s.name);
        else result.retryable.push(s.name);
      }
    }),
  );
  return result;
}

/** The outcome to record for an attempt's result. */
export function outcomeOf(policy: RetryPolicy, event: ClaimedEvent, result: AttemptResult, jitter = Math.random()): Outcome {
  const error = result.errors.length > 0 ? result.errors.join('; ').slice(0, 2000) : null;
  const next = settle(policy, event.attempts, result.retryable.length, jitter);
  if (next.kind === 'done') return { kind: 'done', delivered: result.delivered, error };
  if (next.kind === 'retry') return { kind: 'retry', delivered: result.delivered, delayMs: next.delayMs, error: error ?? 'failed' };
  return { kind: 'give_up', delivered: result.delivered, error: error ?? 'failed' };
}

/**
 * Delivers outbox events after their transaction committed. In every worker, and in API processes
 * too unless OUTBOX_DISPATCH_IN_API=false, a loop claims due events with a lease (`FOR UPDATE SKIP
 * LOCKED`, so dispatchers never share one), hands each to its subscribers, records who is done,
 * and retries the rest with back-off until it gives up. Idle, it looks again every OUTBOX_POLL_MS,
 * sooner when an event was recorded in this process or another (`Wakeups`). At a stop it claims no
 * more, lets the running deliveries finish and gives back what it had claimed but not started.
 */
@Injectable()
export class OutboxDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Outbox');
  private readonly loop: PollingLoop;
  private closing?: Promise<Record<string, unknown>>;
  private delivered = 0;

  constructor(
    @Inject(QUEUE_ROLE) private readonly role: ProcessRole,
    private readonly config: AppConfig,
    private readonly store: OutboxStore,
    private readonly subscribers: OutboxSubscribers,
    private readonly outbox: Outbox,
    private readonly wakeups: Wakeups,
    private readonly lifecycle: ProcessLifecycle,
  ) {
    const { batch, pollMs } = config.outbox;
    this.loop = new PollingLoop({ what: 'outbox dispatch', logger: this.logger, pollMs, pass: async () => (await this.dispatchOnce()) >= batch });
  }

  get dispatches(): boolean {
    return this.role === 'worker' || this.config.outbox.dispatchInApi || consumesQueues(this.role, this.config);
  }

  onApplicationBootstrap(): void {
    if (!this.dispatches) return;
    this.wakeups.on(OUTBOX_WAKEUP, () => this.loop.wake());
    this.loop.start();
    this.lifecycle.onStop(() => this.close());
    this.logger.log({ msg: 'outbox dispatcher started', role: this.role, subscribers: this.subscribers.size });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.close();
  }

  close(): Promise<Record<string, unknown>> {
    this.closing ??= this.loop.stop().then(() => (this.dispatches ? { outbox_delivered: this.delivered } : {}));
    return this.closing;
  }

  /** Claims one batch and delivers it; answers how many it claimed. */
  async dispatchOnce(): Promise<number> {
    const { batch, leaseMs } = this.config.outbox;
    const claimed = await this.store.claim(batch, leaseMs);
    await Promise.all(claimed.map((event) => this.deliver(event)));
    return claimed.length;
  }

  private async deliver(event: ClaimedEvent): Promise<void> {
    if (this.loop.stopping) {
      await this.store.release(event).catch(() => undefined);
      return;
    }
    const policy = { baseMs: this.config.outbox.retryBaseMs, maxMs: this.config.outbox.retryMaxMs, maxAttempts: this.config.outbox.maxAttempts };
    const open = () => (event.secretSealed === null ? undefined : this.outbox.openSecret(event.secretSealed, event.id));
    const result = await attemptDelivery(this.subscribers, event, open, event.attempts >= policy.maxAttempts, this.config.outbox.leaseMs / 2);
    const outcome = outcomeOf(policy, event, result);
    try {
      const kept = await this.store.finish(event, outcome);
      if (!kept) this.logger.warn({ msg: 'outbox claim lapsed before its outcome was recorded; the event runs again', event_id: event.id });
    } catch (err) {
      // The lease lapses and another claim runs the unfinished subscribers again; they are idempotent.
      if (!(await outages.covers(err))) this.logger.warn({ msg: 'outbox outcome not recorded', event_id: event.id, err: String(err) });
      return;
    }
    this.delivered += outcome.delivered.length;
    if (outcome.kind === 'give_up') {
      this.logger.error({ msg: 'outbox event given up', event_id: event.id, type: event.type, attempts: event.attempts, err: outcome.error });
    } else if (outcome.kind === 'retry') {
      this.logger.debug({ msg: 'outbox delivery failed; retrying', event_id: event.id, type: event.type, attempts: event.attempts, retry_in_ms: outcome.delayMs, err: outcome.error });
    } else if (outcome.error !== null) {
      this.logger.error({ msg: 'outbox delivery failed for good', event_id: event.id, type: event.type, err: outcome.error });
    }
  }
}
