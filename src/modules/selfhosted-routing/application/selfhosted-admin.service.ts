import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId, type Caller } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { AuditLog, type AuditAction } from '../../audit/index.js';
import type { Endpoint, EndpointKind, RoutingSettings } from '../domain/endpoint.js';
import { SelfHostedRepository, type EndpointChanges } from '../infrastructure/selfhosted.repository.js';
import { endpointUrlRefusal, normaliseEndpointUrl } from './endpoint-address.js';
import { EndpointHealth } from './endpoint-health.js';
import { EndpointSecrets } from './endpoint-secrets.js';
import { RouterState, type EndpointRuntime, type RoutingStats } from './router-state.js';
import { RoutingDirectory } from './routing-directory.js';

/** A new endpoint as the admin gives it: the key in clear, sealed before it is stored. */
export type EndpointInput = Pick<Endpoint, 'name' | 'url' | 'kind' | 'status' | 'maxConcurrency' | 'capabilities' | 'workflow'> & { apiKey: string | null };

/** A change: absent fields stay; `apiKey`/`workflow` null clears them. */
export type EndpointPatch = Partial<EndpointInput>;

/** The platform admin making a change; it is audited in the admin's own workspace. */
export type RoutingAdmin = Pick<Caller, 'userId' | 'workspaceId'>;

export interface EndpointWithRuntime {
  endpoint: Endpoint;
  runtime: EndpointRuntime;
}

export interface RoutingOverview {
  routing: RoutingSettings;
  endpoints: EndpointWithRuntime[];
  stats: RoutingStats;
}

/** The admin's use cases of self-hosted routing (contract §13). Every change reaches every process at once. */
@Injectable()
export class SelfHostedAdminService {
  private readonly logger = new Logger('SelfHostedRouting');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: SelfHostedRepository,
    private readonly secrets: EndpointSecrets,
    private readonly state: RouterState,
    private readonly directory: RoutingDirectory,
    private readonly health: EndpointHealth,
    private readonly audit: AuditLog,
  ) {}

  async overview(): Promise<RoutingOverview> {
    const [routing, endpoints] = await Promise.all([this.repo.routing(this.ds.manager), this.repo.listEndpoints(this.ds.manager)]);
    const now = Date.now();
    const [runtime, stats] = await Promise.all([this.state.runtime(endpoints.map((e) => e.id), now), this.state.stats(now)]);
    return { routing, endpoints: endpoints.map((endpoint) => ({ endpoint, runtime: runtime.get(endpoint.id)! })), stats };
  }

  async setRouting(enabled: boolean, percentage: number, admin: RoutingAdmin): Promise<RoutingSettings> {
    const routing = await inTransaction(this.ds, async (tx) => {
      const settings = await this.repo.setRouting(tx, enabled, percentage, new Date());
      await this.record(tx, admin, 'selfhosted.routing_changed', 'selfhosted_routing', null, { enabled, routing_percentage: percentage });
      return settings;
    });
    await this.directory.changed();
    this.logger.log({ msg: 'routing changed', enabled, routing_percentage: percentage, admin_user_id: admin.userId });
    return routing;
  }

  async refresh(): Promise<RoutingOverview> {
    await this.health.checkAll();
    return this.overview();
  }

  async create(input: EndpointInput, admin: RoutingAdmin): Promise<EndpointWithRuntime> {
    await this.checkUrl(input.url);
    checkWorkflow(input.kind, input.workflow);
    const id = newId('ep');
    const now = new Date();
    const endpoint: Endpoint = {
      id,
      name: input.name,
      url: normaliseEndpointUrl(input.url),
      kind: input.kind,
      status: input.status,
      maxConcurrency: input.maxConcurrency,
      capabilities: input.capabilities,
      apiKeySealed: input.apiKey ? this.secrets.seal(input.apiKey, id) : null,
      workflow: input.workflow,
      createdAt: now,
      updatedAt: now,
    };
    await inTransaction(this.ds, async (tx) => {
      await this.repo.insertEndpoint(tx, endpoint);
      await this.record(tx, admin, 'selfhosted.endpoint_added', 'selfhosted_endpoint', id, { name: endpoint.name, kind: endpoint.kind, status: endpoint.status });
    });
    await this.directory.changed();
    this.logger.log({ msg: 'endpoint added', endpoint_id: id, kind: endpoint.kind, admin_user_id: admin.userId });
    return this.withRuntime(endpoint);
  }

  async update(id: string, patch: EndpointPatch, admin: RoutingAdmin): Promise<EndpointWithRuntime> {
    const current = await this.repo.findEndpoint(this.ds.manager, id);
    if (!current) throw notFound();
    if (patch.url !== undefined) await this.checkUrl(patch.url);
    const kind = patch.kind ?? current.kind;
    checkWorkflow(kind, patch.workflow === undefined ? current.workflow : patch.workflow);
    const changes: EndpointChanges = {
      name: patch.name,
      url: patch.url === undefined ? undefined : normaliseEndpointUrl(patch.url),
      kind: patch.kind,
      status: patch.status,
      maxConcurrency: patch.maxConcurrency,
      capabilities: patch.capabilities,
      workflow: patch.workflow,
      apiKeySealed: patch.apiKey === undefined ? undefined : patch.apiKey === null ? null : this.secrets.seal(patch.apiKey, id),
    };
    const updated = await inTransaction(this.ds, async (tx) => {
      const row = await this.repo.updateEndpoint(tx, id, changes, new Date());
      if (!row) throw notFound();
      // Field names only: a changed api_key is named, never shown.
      await this.record(tx, admin, 'selfhosted.endpoint_changed', 'selfhosted_endpoint', id, { fields: patchedFields(patch) });
      return row;
    });
    await this.directory.changed();
    this.logger.log({ msg: 'endpoint changed', endpoint_id: id, fields: Object.keys(patch), admin_user_id: admin.userId });
    return this.withRuntime(updated);
  }

  /** Jobs running on it finish: they hold what they need; new jobs no longer see it. */
  async remove(id: string, admin: RoutingAdmin): Promise<void> {
    await inTransaction(this.ds, async (tx) => {
      if (!(await this.repo.deleteEndpoint(tx, id))) throw notFound();
      await this.record(tx, admin, 'selfhosted.endpoint_removed', 'selfhosted_endpoint', id, {});
    });
    await this.directory.changed();
    await this.state.forget(id);
    this.logger.log({ msg: 'endpoint removed', endpoint_id: id, admin_user_id: admin.userId });
  }

  private record(tx: Tx, admin: RoutingAdmin, action: AuditAction, targetType: string, targetId: string | null, details: Record<string, unknown>): Promise<void> {
    return this.audit.record(tx, { workspaceId: admin.workspaceId, actorUserId: admin.userId, action, targetType, targetId, details });
  }

  private async withRuntime(endpoint: Endpoint): Promise<EndpointWithRuntime> {
    const runtime = await this.state.runtime([endpoint.id], Date.now());
    return { endpoint, runtime: runtime.get(endpoint.id)! };
  }

  private async checkUrl(url: string): Promise<void> {
    const refusal = await endpointUrlRefusal(url);
    if (refusal) throw new AppError('validation_failed', `url ${refusal}.`, [{ field: 'url', message: `url ${refusal}` }]);
  }
}

function checkWorkflow(kind: EndpointKind, workflow: Record<string, unknown> | null): void {
  if (workflow !== null && kind !== 'comfyui') {
    throw new AppError('validation_failed', 'workflow applies to comfyui endpoints only.', [{ field: 'workflow', message: 'workflow applies to comfyui endpoints only' }]);
  }
}

/** The wire names of the fields a patch sets. */
function patchedFields(patch: EndpointPatch): string[] {
  return Object.entries(patch)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
}

function notFound(): AppError {
  return new AppError('not_found', 'No such self-hosted endpoint.');
}
