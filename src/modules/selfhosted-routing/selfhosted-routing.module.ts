import { Module, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/index.js';
import { RedisConnections } from '../../platform/redis/redis.module.js';
import { GenerationModule, ImageGeneratorSeam } from '../generation/index.js';
import { SelfHostedController } from './api/selfhosted.controller.js';
import { EndpointHealth } from './application/endpoint-health.js';
import { EndpointSecrets } from './application/endpoint-secrets.js';
import { GpuBackends } from './application/gpu-backends.js';
import { RouterState } from './application/router-state.js';
import { RoutingGauges } from './application/routing-gauges.js';
import { RoutingDirectory } from './application/routing-directory.js';
import { SelfHostedAdminService } from './application/selfhosted-admin.service.js';
import { SelfHostedRouter } from './application/selfhosted-router.js';
import { A1111Backend, ComfyUiBackend } from './infrastructure/index.js';
import { SelfHostedRepository } from './infrastructure/selfhosted.repository.js';
import { MemoryRouterState } from './infrastructure/state/memory-router-state.js';
import { RedisRouterState } from './infrastructure/state/redis-router-state.js';

/**
 * Shared when Redis is configured (every API and worker process sees one state), else this
 * process's. Its own connection, without the main one's auto-pipelining: a job's two steps go out
 * at once rather than a tick later, which took the router's CPU per self-hosted job from 443 to
 * 307 µs in the routing bench.
 */
export function routerStateFor(redis: RedisConnections, config: AppConfig): RouterState {
  return redis.enabled ? new RedisRouterState(redis.create('routing'), config.redisPrefix) : new MemoryRouterState();
}

/**
 * Self-hosted GPU routing (contract §13): admin routes, health probes, and the router it installs
 * at the image seam at boot, so every image job, in every process, passes through it.
 */
@Module({
  imports: [GenerationModule],
  controllers: [SelfHostedController],
  providers: [
    SelfHostedRepository,
    EndpointSecrets,
    RoutingDirectory,
    EndpointHealth,
    SelfHostedAdminService,
    SelfHostedRouter,
    RoutingGauges,
    { provide: RouterState, inject: [RedisConnections, AppConfig], useFactory: routerStateFor },
    { provide: GpuBackends, useFactory: () => new GpuBackends([new A1111Backend(), new ComfyUiBackend()]) },
  ],
})
export class SelfHostedRoutingModule implements OnModuleInit {
  constructor(
    private readonly seam: ImageGeneratorSeam,
    private readonly router: SelfHostedRouter,
  ) {}

  onModuleInit(): void {
    this.seam.routeThrough(this.router);
  }
}
