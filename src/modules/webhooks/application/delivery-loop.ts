import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import type { ProcessRole } from '../../../core/index.js';
import { ProcessLifecycle } from '../../../platform/lifecycle/index.js';
import { consumesQueues, PollingLoop, QUEUE_ROLE } from '../../../platform/queue/index.js';
import { Wakeups } from '../../../platform/redis/redis.module.js';
import { AuditLog } from '../../audit/index.js';
import { activeSecrets, deliveryHeaders } from '../domain/signing.js';
import { failingTooLong, settleAttempt, type Settlement } from '../domain/webhook-rules.js';
import { DeliveryStore, type AttemptRecord, type ClaimedDelivery, type DeliveryOutcome } from '../infrastructure/delivery-store.js';
import { endpointView, type EndpointRow } from '../infrastructure/webhooks.repository.js';
import { WEBHOOK_DELIVERY_WAKEUP } from './delivery-wake.js';
import { EndpointDisabledNotice } from './ports/endpoint-notices.js';
import { WebhookSender } from './ports/webhook-sender.js';
import { WebhookMetrics } from './webhook-metrics.js';
import { WebhookSecrets } from './webhook-secrets.js';
import { outages } from '../../../platform/health/index.js';

/** The slots an endpoint has left in this process, and the endpoints with none. */
export function saturated(inFlight: ReadonlyMap<string, number>, perEndpoint: number): string[] {
  return [...inFlight.entries()].filter(([, n]) => n >= perEndpoint).map(([id]) => id);
}

/**
 * Sends webhook deliveries. Runs in workers, and in an API process that runs jobs itself (the
 * embedded mode) or has WEBHOOK_DELIVERY_IN_API=true. A loop claims due deliveries with a lease
 * (`FOR UPDATE SKIP LOCKED`: two processes never hold one delivery at once), at most
 * WEBHOOK_BATCH in flight in this process and WEBHOOK_CONCURRENCY_PER_ENDPOINT to one endpoint;
 * each attempt is signed, posted, recorded, and settled (delivered, retried later, failed, the
 * endpoint disabled). A lease that lapses (a killed worker) is taken over and the delivery sent
 * again with the same `webhook-id`. Idle, it looks again every WEBHOOK_POLL, sooner when deliveries
 * were queued in this process or another (`Wakeups`) or an attempt here freed a slot. At a stop it
 * claims no more and lets running attempts finish (each is bounded by WEBHOOK_TIMEOUT).
 */
@Injectable()
export class WebhookDeliveryLoop implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly inFlight = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private readonly loop: PollingLoop;
  private closing?: Promise<Record<string, unknown>>;
  private sent = 0;

  constructor(
    @Inject(QUEUE_ROLE) private readonly role: ProcessRole,
    private readonly config: AppConfig,
    private readonly store: DeliveryStore,
    private readonly sender: WebhookSender,
    private readonly secrets: WebhookSecrets,
    private readonly audit: AuditLog,
    private readonly notice: EndpointDisabledNotice,
    private readonly metrics: WebhookMetrics,
    private readonly wakeups: Wakeups,
    private readonly lifecycle: ProcessLifecycle,
  ) {
    this.loop = new PollingLoop({ what: 'webhook claim', logger: this.logger, pollMs: config.webhooks.pollMs, pass: () => this.claimFree() });
  }

  get delivers(): boolean {
    return this.role === 'worker' || this.config.webhooks.deliveryInApi || consumesQueues(this.role, this.config);
  }

  onApplicationBootstrap(): void {
    if (!this.delivers) return;
    this.wakeups.on(WEBHOOK_DELIVERY_WAKEUP, () => this.loop.wake());
    this.loop.start();
    this.lifecycle.onStop(() => this.close());
    this.logger.log({ msg: 'webhook delivery started', role: this.role });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.close();
  }

  close(): Promise<Record<string, unknown>> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<Record<string, unknown>> {
    await this.loop.stop();
    await Promise.all([...this.running]);
    return this.delivers ? { webhook_attempts: this.sent } : {};
  }

  /** Claims as many deliveries as this process has room for; answers whether it filled them all (more may be due). */
  private async claimFree(): Promise<boolean> {
    const free = this.config.webhooks.batch - this.running.size;
    if (free <= 0) return false; // a finishing attempt wakes the loop
    return (await this.claimAndStart(free)) >= free;
  }

  private async claimAndStart(free: number): Promise<number> {
    const { leaseMs, concurrencyPerEndpoint } = this.config.webhooks;
    const claimed = await this.store.claim(free, leaseMs, concurrencyPerEndpoint, saturated(this.inFlight, concurrencyPerEndpoint));
    for (const d of claimed) {
      if (this.loop.stopping || (this.inFlight.get(d.endpointId) ?? 0) >= concurrencyPerEndpoint) {
        await this.store.release(d).catch(() => undefined);
        continue;
      }
      this.start(d);
    }
    return claimed.length;
  }

  private start(d: ClaimedDelivery): void {
    this.inFlight.set(d.endpointId, (this.inFlight.get(d.endpointId) ?? 0) + 1);
    const run: Promise<void> = this.attempt(d)
      .catch(async (err: unknown) => {
        if (!(await outages.covers(err))) this.logger.warn({ msg: 'webhook attempt not recorded; its lease will lapse and it runs again', delivery_id: d.id, err: String(err) });
      })
      .finally(() => {
        const left = (this.inFlight.get(d.endpointId) ?? 1) - 1;
        if (left <= 0) this.inFlight.delete(d.endpointId);
        else this.inFlight.set(d.endpointId, left);
        this.running.delete(run);
        this.loop.wake();
      });
    this.running.add(run);
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    if (!d.endpointEnabled) {
      await this.store.abandon(d, 'endpoint disabled');
      return;
    }
    let secrets: string[];
    const now = new Date();
    try {
      secrets = activeSecrets(
        {
          current: this.secrets.open(d.secretSealed, d.endpointId),
          previous: d.previousSecretSealed === null ? null : this.secrets.open(d.previousSecretSealed, d.endpointId),
          previousExpiresAt: d.previousSecretExpiresAt,
        },
        now,
      );
    } catch {
      await this.store.abandon(d, 'signing secret unreadable (TOKEN_ENCRYPTION_KEY changed?)');
      return;
    }
    const body = JSON.stringify(d.body);
    const result = await this.sender.send(d.url, deliveryHeaders(secrets, d.eventId, now, body), body, this.config.webhooks.timeoutMs);
    this.sent += 1;
    const settlement = settleAttempt(result.status, d.attempts, this.config.webhooks.retryScheduleMs, Math.random());
    const record: AttemptRecord = { startedAt: now, durationMs: result.durationMs, statusCode: result.status, responseExcerpt: result.excerpt, error: result.error };
    const { kept, disabled } = settlement.delivery === 'delivered' ? { kept: await this.store.delivered(d, record), disabled: null } : await this.settleFailure(d, record, settlement);
    const label = settlement.endpoint === 'gone' ? 'gone' : settlement.delivery;
    this.metrics.attempt(label, result.durationMs);
    const line = { msg: `webhook attempt ${label}`, delivery_id: d.id, endpoint_id: d.endpointId, event_id: d.eventId, type: d.eventType, attempt: d.attempts, status: result.status, duration_ms: result.durationMs, err: result.error ?? undefined, kept };
    this.logger.debug(line);
    const gone = disabled;
    if (gone) {
      this.logger.warn({ msg: 'webhook endpoint disabled', endpoint_id: d.endpointId, workspace_id: d.workspaceId, reason: gone.disabled_reason });
      await this.notice.publish(endpointView(gone)).catch((err: unknown) =>
        this.logger.warn({ msg: 'webhook.endpoint_disabled socket event not published', endpoint_id: d.endpointId, err: String(err) }),
      );
    }
  }

  /** Records a failed attempt, its retry or failure, the endpoint's standing and, when it is disabled now, the audit entry: one transaction. */
  private async settleFailure(d: ClaimedDelivery, record: AttemptRecord, settlement: Settlement): Promise<{ kept: boolean; disabled: EndpointRow | null }> {
    const state: { disabled: EndpointRow | null } = { disabled: null };
    const kept = await this.store.finish(d, record, outcomeOf(settlement), async (tx) => {
      if (settlement.endpoint === 'gone') {
        state.disabled = await this.store.disable(tx, d.endpointId, 'gone');
      } else {
        const since = await this.store.endpointFailed(tx, d.endpointId, record.startedAt);
        if (failingTooLong(since, new Date(), this.config.webhooks.disableAfterMs)) state.disabled = await this.store.disable(tx, d.endpointId, 'failing');
      }
      const disabled = state.disabled;
      if (disabled) {
        await this.audit.record(tx, {
          workspaceId: d.workspaceId,
          actorUserId: null,
          action: 'webhook.endpoint_disabled',
          targetType: 'webhook_endpoint',
          targetId: d.endpointId,
          details: { reason: disabled.disabled_reason, url: disabled.url, last_status: record.statusCode },
        });
      }
    });
    return { kept, disabled: state.disabled };
  }
}

function outcomeOf(s: Settlement): DeliveryOutcome {
  if (s.delivery === 'delivered') return { kind: 'delivered' };
  if (s.delivery === 'retry') return { kind: 'retry', delayMs: s.delayMs };
  return { kind: 'failed' };
}
