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
  /** The shared settings version this copy was read under. */
  version: string;
  settings: RoutingSettings;
  entries: DirectoryEntry[];
}

/**
 * The routing setting and the endpoints, with their keys opened, as this process last read them.
 * Every change bumps a shared version (Redis), and a process reads the database again only when
 * the version it holds is not the current one. The router takes the held copy unchecked and
 * checks its version in the same step that acts on it (the claim, or the cloud count), so a job
 * pays no round trip of its own for it, and none acts on a stale copy.
 */
@Injectable()
export class RoutingDirectory {
  private readonly logger = new Logger('SelfHostedRouting');
  private copy: Directory | null = null;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: SelfHostedRepository,
    private readonly secrets: EndpointSecrets,
    private readonly state: RouterState,
  ) {}

  /** The copy this process holds, its version unchecked (read when it holds none). */
  async held(): Promise<Directory> {
    return this.copy ?? this.current();
  }

  /** Checked against the shared version: read afresh when it moved. */
  async current(): Promise<Directory> {
    // The version first: a change landing during the reads below leaves this copy stale, not wrong.
    const version = await this.state.settingsVersion();
    if (this.copy?.version === version) return this.copy;
    const [settings, endpoints] = await Promise.all([this.repo.routing(this.ds.manager), this.repo.listEndpoints(this.ds.manager)]);
    this.copy = { version, settings, entries: endpoints.map((endpoint) => ({ endpoint, target: this.targetOf(endpoint) })) };
    return this.copy;
  }

  /** After a change here: every process, this one included, reads afresh. */
  async changed(): Promise<void> {
    this.copy = null;
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
