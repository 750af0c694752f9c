import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Endpoint, RoutingSettings } from '../domain/endpoint.js';
import { SelfHostedRepository } from '../infrastructure/selfhosted.repository.js';
import { EndpointSecrets } from './endpoint-secrets.js';
import type { GpuTarget } from './ports/gpu-backend.js';
import { RouterState } from './router-state.js';

export interface DirectoryEntry {
  endpoint: Endpoint;
  /** Null when its sealed key no longer opens (the encryption key changed): it is left out of routing. */
  target: GpuTarget | null;
}

export interface Directory {
  settings: RoutingSettings;
  entries: DirectoryEntry[];
}

/**
 * The routing setting and the endpoints, with their keys opened, as this process last read them.
 * Every change bumps a shared version (Redis), and a process reads the database again only when
 * the version it holds is not the current one: one Redis read per job, and no stale copy.
 */
@Injectable()
export class RoutingDirectory {
  private readonly logger = new Logger('SelfHostedRouting');
  private held: { version: string | null; directory: Directory } | null = null;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: SelfHostedRepository,
    private readonly secrets: EndpointSecrets,
    private readonly state: RouterState,
  ) {}

  async current(): Promise<Directory> {
    const version = await this.state.settingsVersion();
    if (this.held && this.held.version === version) return this.held.directory;
    const [settings, endpoints] = await Promise.all([this.repo.routing(this.ds.manager), this.repo.listEndpoints(this.ds.manager)]);
    const directory = { settings, entries: endpoints.map((endpoint) => ({ endpoint, target: this.targetOf(endpoint) })) };
    this.held = { version, directory };
    return directory;
  }

  /** After a change here: every process, this one included, reads afresh. */
  async changed(): Promise<void> {
    this.held = null;
    await this.state.bumpSettingsVersion();
  }

  private targetOf(e: Endpoint): GpuTarget | null {
    let apiKey: string | null = null;
    if (e.apiKeySealed) {
      try {
        apiKey = this.secrets.open(e.apiKeySealed, e.id);
      } catch {
        this.logger.error({ msg: 'endpoint key does not open; endpoint left out of routing', endpoint_id: e.id });
        return null;
      }
    }
    return { id: e.id, kind: e.kind, url: e.url, apiKey, workflow: e.workflow };
  }
}
