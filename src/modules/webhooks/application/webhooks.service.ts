import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, newId, type Caller, type Page, type PageRequest } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { isOutboundError, vetHost } from '../../../platform/outbound/index.js';
import { Wakeups } from '../../../platform/redis/redis.module.js';
import { AuditLog, type AuditAction } from '../../audit/index.js';
import { endpointUrlProblem, eventTypesProblem, MAX_ENDPOINTS_PER_WORKSPACE, newSigningSecret, TEST_EVENT_TYPE } from '../domain/webhook-rules.js';
import { endpointView, WebhooksRepository } from '../infrastructure/webhooks.repository.js';
import { WEBHOOK_DELIVERY_WAKEUP } from './delivery-wake.js';
import type { DeliveryFilter, DeliveryView, EndpointPatch, EndpointView, EndpointWithSecret, NewEndpoint } from './webhook.views.js';
import { WebhookSecrets } from './webhook-secrets.js';

/** A workspace's webhook endpoints and their deliveries. The plan and role checks live on the routes. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly secrets: WebhookSecrets,
    private readonly audit: AuditLog,
    private readonly config: AppConfig,
    private readonly wakeups: Wakeups,
    @InjectDataSource() private readonly ds: DataSource,
  ) {}

  async create(caller: Caller, input: NewEndpoint): Promise<EndpointWithSecret> {
    await this.assertUrl(input.url);
    assertTypes(input.eventTypes);
    const id = newId('whe');
    const secret = newSigningSecret();
    const row = await inTransaction(this.ds, async (tx) => {
      await this.repo.lockWorkspace(tx, caller.workspaceId);
      const count = await this.repo.count(tx, caller.workspaceId);
      if (count >= MAX_ENDPOINTS_PER_WORKSPACE) {
        throw new AppError('webhook_endpoint_limit_reached', `A workspace may have ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints; delete one first.`, {
          limit: MAX_ENDPOINTS_PER_WORKSPACE,
        });
      }
      const inserted = await this.repo.insert(tx, {
        id,
        workspace_id: caller.workspaceId,
        url: input.url,
        description: input.description ?? '',
        event_types: input.eventTypes,
        secret_sealed: this.secrets.seal(secret, id),
      });
      await this.record(tx, caller, 'webhook.endpoint_created', id, { url: input.url, event_types: input.eventTypes });
      return inserted;
    });
    return { endpoint: endpointView(row), secret };
  }

  async list(workspaceId: string): Promise<EndpointView[]> {
    const now = new Date();
    return (await this.repo.list(workspaceId)).map((r) => endpointView(r, now));
  }

  async get(workspaceId: string, id: string): Promise<EndpointView> {
    const row = await this.repo.find(workspaceId, id);
    if (!row) throw AppError.notFound('Webhook endpoint');
    return endpointView(row);
  }

  async update(caller: Caller, id: string, patch: EndpointPatch): Promise<EndpointView> {
    if (patch.url !== undefined) await this.assertUrl(patch.url);
    if (patch.eventTypes !== undefined) assertTypes(patch.eventTypes);
    const row = await inTransaction(this.ds, async (tx) => {
      const updated = await this.repo.update(tx, caller.workspaceId, id, patch);
      if (!updated) throw AppError.notFound('Webhook endpoint');
      const changed = Object.fromEntries(
        Object.entries({ url: patch.url, description: patch.description, event_types: patch.eventTypes, enabled: patch.enabled }).filter(([, v]) => v !== undefined),
      );
      await this.record(tx, caller, 'webhook.endpoint_updated', id, changed);
      return updated;
    });
    return endpointView(row);
  }

  /** Deletes the endpoint with its deliveries and their attempts. */
  async remove(caller: Caller, id: string): Promise<void> {
    await inTransaction(this.ds, async (tx) => {
      const row = await this.repo.find(caller.workspaceId, id, tx);
      if (!row || !(await this.repo.delete(tx, caller.workspaceId, id))) throw AppError.notFound('Webhook endpoint');
      await this.record(tx, caller, 'webhook.endpoint_deleted', id, { url: row.url });
    });
  }

  /** A new secret signs from now; the current one keeps signing beside it for the overlap (24 h). */
  async rotateSecret(caller: Caller, id: string): Promise<EndpointWithSecret> {
    const secret = newSigningSecret();
    const row = await inTransaction(this.ds, async (tx) => {
      const rotated = await this.repo.rotate(tx, caller.workspaceId, id, this.secrets.seal(secret, id), this.config.webhooks.rotationOverlapMs);
      if (!rotated) throw AppError.notFound('Webhook endpoint');
      await this.record(tx, caller, 'webhook.secret_rotated', id, { previous_secret_expires_at: rotated.previous_secret_expires_at?.toISOString() ?? null });
      return rotated;
    });
    return { endpoint: endpointView(row), secret };
  }

  /** Queues a `webhook.test` delivery to the endpoint (enabled ones only), sent like any other. */
  async sendTest(caller: Caller, id: string): Promise<DeliveryView> {
    const delivery = await inTransaction(this.ds, async (tx) => {
      const row = await this.repo.find(caller.workspaceId, id, tx);
      if (!row) throw AppError.notFound('Webhook endpoint');
      if (!row.enabled) throw AppError.invalidTransition('disabled', 'send a test event');
      const eventId = newId('evt');
      const body = { id: eventId, type: TEST_EVENT_TYPE, created_at: new Date().toISOString(), workspace_id: caller.workspaceId, data: { endpoint_id: id } };
      const inserted = await this.repo.insertDelivery(tx, id, caller.workspaceId, eventId, TEST_EVENT_TYPE, body);
      await this.record(tx, caller, 'webhook.test_sent', id, { delivery_id: inserted.id, event_id: eventId });
      return inserted;
    });
    this.wakeups.signal(WEBHOOK_DELIVERY_WAKEUP);
    return delivery;
  }

  async deliveries(workspaceId: string, endpointId: string, filter: DeliveryFilter, page: PageRequest): Promise<Page<DeliveryView>> {
    if (!(await this.repo.find(workspaceId, endpointId))) throw AppError.notFound('Webhook endpoint');
    return this.repo.listDeliveries(workspaceId, endpointId, filter, page);
  }

  /** Queues a delivered or failed delivery again, due now; the attempt count (and schedule) continues. */
  async retry(caller: Caller, endpointId: string, deliveryId: string): Promise<DeliveryView> {
    const delivery = await inTransaction(this.ds, async (tx) => {
      const endpoint = await this.repo.find(caller.workspaceId, endpointId, tx);
      const found = endpoint ? await this.repo.findDelivery(caller.workspaceId, endpointId, deliveryId, tx) : null;
      if (!endpoint || !found) throw AppError.notFound('Webhook delivery');
      if (!endpoint.enabled) throw AppError.invalidTransition('disabled', 'retry a delivery of a disabled endpoint');
      if (!(await this.repo.requeue(tx, caller.workspaceId, endpointId, deliveryId))) throw AppError.invalidTransition(found.status, 'retry');
      await this.record(tx, caller, 'webhook.delivery_retried', endpointId, { delivery_id: deliveryId, event_id: found.eventId });
      return (await this.repo.findDelivery(caller.workspaceId, endpointId, deliveryId, tx))!;
    });
    this.wakeups.signal(WEBHOOK_DELIVERY_WAKEUP);
    return delivery;
  }

  /** The URL rules: syntax (https in production), then every address its host resolves to must be public (OUTBOUND_ALLOW_HOSTS exempt). */
  private async assertUrl(url: string): Promise<void> {
    const problem = endpointUrlProblem(url, this.config.production);
    if (problem) throw new AppError('validation_failed', problem, [{ field: 'url', message: problem }]);
    try {
      await vetHost(new URL(url), { policy: 'public', allowHosts: this.config.outboundAllowHosts, what: 'webhooks' });
    } catch (err) {
      const message = isOutboundError(err) ? `url ${err.kind === 'blocked' ? 'is refused' : 'cannot be used'}: ${err.message}` : 'url cannot be resolved';
      throw new AppError('validation_failed', message, [{ field: 'url', message }]);
    }
  }

  private async record(tx: Tx, caller: Caller, action: AuditAction, endpointId: string, details: Record<string, unknown>): Promise<void> {
    await this.audit.record(tx, { workspaceId: caller.workspaceId, actorUserId: caller.userId, action, targetType: 'webhook_endpoint', targetId: endpointId, details });
  }
}

function assertTypes(types: unknown): void {
  const problem = eventTypesProblem(types);
  if (problem) throw new AppError('validation_failed', problem, [{ field: 'event_types', message: problem }]);
}
