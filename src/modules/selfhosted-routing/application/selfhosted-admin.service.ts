import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId } from '../../../core/index.js';
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
  ) {}

  async overview(): Promise<RoutingOverview> {
    const [routing, endpoints] = await Promise.all([this.repo.routing(this.ds.manager), this.repo.listEndpoints(this.ds.manager)]);
    const now = Date.now();
    const [runtime, stats] = await Promise.all([this.state.runtime(endpoints.map((e) => e.id), now), this.state.stats(now)]);
    return { routing, endpoints: endpoints.map((endpoint) => ({ endpoint, runtime: runtime.get(endpoint.id)! })), stats };
  }

  async setRouting(enabled: boolean, percentage: number, adminUserId: string): Promise<RoutingSettings> {
    const routing = await this.repo.setRouting(this.ds.manager, enabled, percentage, new Date());
    await this.directory.changed();
    this.logger.log({ msg: 'routing changed', enabled, routing_percentage: percentage, admin_user_id: adminUserId });
    return routing;
  }

  async refresh(): Promise<RoutingOverview> {
    await this.health.checkAll();
    return this.overview();
  }

  async create(input: EndpointInput, adminUserId: string): Promise<EndpointWithRuntime> {
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
    await this.repo.insertEndpoint(this.ds.manager, endpoint);
    await this.directory.changed();
    this.logger.log({ msg: 'endpoint added', endpoint_id: id, kind: endpoint.kind, admin_user_id: adminUserId });
    return this.withRuntime(endpoint);
  }

  async update(id: string, patch: EndpointPatch, adminUserId: string): Promise<EndpointWithRuntime> {
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
    const updated = await this.repo.updateEndpoint(this.ds.manager, id, changes, new Date());
    if (!updated) throw notFound();
    await this.directory.changed();
    this.logger.log({ msg: 'endpoint changed', endpoint_id: id, fields: Object.keys(patch), admin_user_id: adminUserId });
    return this.withRuntime(updated);
  }

  /** Jobs running on it finish: they hold what they need; new jobs no longer see it. */
  async remove(id: string, adminUserId: string): Promise<void> {
    if (!(await this.repo.deleteEndpoint(this.ds.manager, id))) throw notFound();
    await this.directory.changed();
    await this.state.forget(id);
    this.logger.log({ msg: 'endpoint removed', endpoint_id: id, admin_user_id: adminUserId });
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

function notFound(): AppError {
  return new AppError('not_found', 'No such self-hosted endpoint.');
}
