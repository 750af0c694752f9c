import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, type SelfHostedSettings } from '../../../config/index.js';
import type { ProcessRole } from '../../../core/index.js';
import { consumesQueues, QUEUE_ROLE } from '../../../platform/queue/index.js';
import { describeFailure } from './failure-kinds.js';
import { GpuBackends } from './gpu-backends.js';
import { RouterState } from './router-state.js';
import { RoutingDirectory, type DirectoryEntry } from './routing-directory.js';
import { outages } from '../../../platform/health/index.js';

/**
 * Health probes (A1111 `/internal/ping`, ComfyUI `/system_stats`). Processes that run jobs probe
 * every active endpoint once per interval, and only one process wins each endpoint's interval;
 * the refresh route probes all of them at once. A result counts for the health TTL.
 */
@Injectable()
export class EndpointHealth implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SelfHostedRouting');
  private readonly settings: SelfHostedSettings;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly directory: RoutingDirectory,
    private readonly state: RouterState,
    private readonly backends: GpuBackends,
    @Inject(QUEUE_ROLE) private readonly role: ProcessRole,
  ) {
    this.settings = config.selfHosted;
  }

  onApplicationBootstrap(): void {
    if (!consumesQueues(this.role, this.config) || this.settings.healthIntervalMs === 0) return;
    this.timer = setInterval(() => void this.checkDue(), this.settings.healthIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Probes every active endpoint now (the refresh route). */
  async checkAll(): Promise<void> {
    const { entries } = await this.directory.current();
    await Promise.all(entries.filter((e) => e.endpoint.status === 'active').map((e) => this.probe(e)));
  }

  private async checkDue(): Promise<void> {
    try {
      const { entries } = await this.directory.current();
      for (const e of entries) {
        if (e.endpoint.status !== 'active') continue;
        if (await this.state.claimProbe(e.endpoint.id, this.settings.healthIntervalMs)) void this.probe(e);
      }
    } catch (err) {
      if (!(await outages.covers(err))) this.logger.warn({ msg: 'health round failed', error: (err as Error).message });
    }
  }

  private async probe({ endpoint, target }: DirectoryEntry): Promise<void> {
    if (!target) {
      await this.state.recordHealth(endpoint.id, 'unhealthy', 'its API key cannot be decrypted: set it again', Date.now());
      return;
    }
    try {
      await this.backends.for(target.kind).probe(target, AbortSignal.timeout(this.settings.probeTimeoutMs));
      await this.state.recordHealth(endpoint.id, 'healthy', null, Date.now());
    } catch (err) {
      const error = `health probe ${describeFailure(err, false)}`;
      this.logger.warn({ msg: 'endpoint unhealthy', endpoint_id: endpoint.id, error });
      await this.state.recordHealth(endpoint.id, 'unhealthy', error, Date.now());
    }
  }
}
