import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { AppConfig } from '../../src/config/index.js';
import { newId } from '../../src/core/ids.js';
import type { DataSource } from 'typeorm';
import type { GeneratedMedia, ImageGenerator, ImageRequest } from '../../src/modules/generation/index.js';
import { Metrics } from '../../src/platform/metrics/metrics.js';
import { GpuBackends } from '../../src/modules/selfhosted-routing/application/gpu-backends.js';
import type { EndpointSecrets } from '../../src/modules/selfhosted-routing/application/endpoint-secrets.js';
import type { GpuBackend } from '../../src/modules/selfhosted-routing/application/ports/gpu-backend.js';
import { RoutingDirectory } from '../../src/modules/selfhosted-routing/application/routing-directory.js';
import { SelfHostedRouter } from '../../src/modules/selfhosted-routing/application/selfhosted-router.js';
import type { Endpoint, RoutingSettings } from '../../src/modules/selfhosted-routing/domain/endpoint.js';
import type { SelfHostedRepository } from '../../src/modules/selfhosted-routing/infrastructure/selfhosted.repository.js';
import { RedisRouterState } from '../../src/modules/selfhosted-routing/infrastructure/state/redis-router-state.js';
import { table } from '../lib/report.js';
import { percentile } from '../lib/stats.js';

/**
 * The router's own cost per job, in this process: `SelfHostedRouter.generate` with the real Redis
 * state (the scripts, the pipelines, the round trips every job pays), the real `RoutingDirectory`
 * (one Redis read of the settings version per job), and backends that answer at once. The time
 * spent inside the backend's and the fallback's `generate` is taken off each call, so what is left
 * is the decision: plan, rank, claim, succeeded, release, count. Only the directory's database read
 * is stood in for (a repository answering fixed rows): it runs on a settings change, not per job.
 */
export const OVERHEAD_WARMUP = 1_000;
export const OVERHEAD_CALLS = 5_000;
export const OVERHEAD_CALLERS = 8;

export interface OverheadRow {
  path: 'selfhosted' | 'cloud';
  callers: number;
  calls: number;
  /** Per call, in ms. */
  p50: number;
  p99: number;
  max: number;
  /** Decisions per second over the run, all callers together. */
  perSecond: number;
  /** Calls that ended on another path than the one measured (e.g. a full endpoint); should be 0. */
  offPath: number;
}

const MEDIA: GeneratedMedia[] = [{ bytes: Buffer.from('png'), contentType: 'image/png', width: 1024, height: 1024 }];

/** The time each call spent inside the stand-in backend or fallback, by the call's seed. */
class InsideClock {
  readonly inside: number[] = [];

  timed(seed: number | undefined): GeneratedMedia[] {
    const t = performance.now();
    const media = MEDIA;
    if (seed !== undefined) this.inside[seed] = (this.inside[seed] ?? 0) + (performance.now() - t);
    return media;
  }
}

function endpoint(id: string): Endpoint {
  const at = new Date();
  return { id, name: id, url: `http://127.0.0.1:9/${id}`, kind: 'a1111', status: 'active', maxConcurrency: 8, capabilities: ['text_to_image', 'image_to_image'], apiKeySealed: null, workflow: null, createdAt: at, updatedAt: at };
}

interface Rig {
  router: SelfHostedRouter;
  directory: RoutingDirectory;
  routing: RoutingSettings;
  clock: InsideClock;
  fallback: ImageGenerator;
  redis: Redis;
}

function buildRig(env: Record<string, string>, prefix: string): Rig {
  const config = new AppConfig(env);
  // As the service's main client: auto-pipelining on, so concurrent callers share round trips.
  const redis = new Redis(config.redisUrl!, { connectionName: 'bench-routing', maxRetriesPerRequest: null, enableAutoPipelining: true });
  const state = new RedisRouterState(redis, prefix);
  const routing: RoutingSettings = { enabled: true, percentage: 100, updatedAt: new Date() };
  const endpoints = [endpoint('ep_bench_gpu_a'), endpoint('ep_bench_gpu_b')];
  const repo = { routing: async () => ({ ...routing }), listEndpoints: async () => endpoints } as unknown as SelfHostedRepository;
  const directory = new RoutingDirectory({ manager: null } as unknown as DataSource, repo, null as unknown as EndpointSecrets, state);
  const clock = new InsideClock();
  const backend = { kind: 'a1111', generate: async (_t: unknown, req: { seed?: number }) => clock.timed(req.seed), probe: async () => undefined } as unknown as GpuBackend;
  const fallback: ImageGenerator = { generate: async (req: ImageRequest) => clock.timed(req.seed) };
  const router = new SelfHostedRouter(config, directory, state, new GpuBackends([backend]), new Metrics());
  return { router, directory, routing, clock, fallback, redis };
}

function request(seed: number): ImageRequest {
  const character = { id: 'chr_bench', name: 'Mia', niche: 'travel', aesthetic: 'film grain, golden hour', stylePresets: ['cinematic'], primaryImageUrl: null };
  return { jobId: newId('job'), workspaceId: 'ws_bench', character, prompt: 'Sunrise run by the river', width: 1024, height: 1024, count: 1, seed };
}

/** `calls` calls of `router.generate`, `callers` at a time; answers each call's time outside the stand-ins. */
async function run(rig: Rig, path: OverheadRow['path'], calls: number, callers: number): Promise<{ times: number[]; seconds: number; offPath: number }> {
  const reqs = Array.from({ length: calls }, (_, i) => request(i));
  const times = new Array<number>(calls);
  rig.clock.inside.length = 0;
  let next = 0;
  let offPath = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < calls) {
        const i = next++;
        const t0 = performance.now();
        const routed = await rig.router.generate(reqs[i], rig.fallback);
        times[i] = performance.now() - t0 - (rig.clock.inside[i] ?? 0);
        if (routed.route.route !== path) offPath++;
      }
    }),
  );
  return { times, seconds: (performance.now() - started) / 1000, offPath };
}

async function measurePath(rig: Rig, path: OverheadRow['path']): Promise<OverheadRow[]> {
  rig.routing.percentage = path === 'selfhosted' ? 100 : 0;
  // Bumps the shared version: the next call reads the settings afresh, as after the admin's PUT.
  await rig.directory.changed();
  const rows: OverheadRow[] = [];
  for (const callers of [1, OVERHEAD_CALLERS]) {
    await run(rig, path, OVERHEAD_WARMUP, callers);
    const r = await run(rig, path, OVERHEAD_CALLS, callers);
    rows.push({
      path, callers, calls: OVERHEAD_CALLS, p50: percentile(r.times, 50), p99: percentile(r.times, 99), max: Math.max(...r.times),
      perSecond: OVERHEAD_CALLS / r.seconds, offPath: r.offPath,
    });
  }
  return rows;
}

/** Both paths, sequential and at 8 callers; `prefix` keeps the Redis keys apart from any service's. */
export async function measureDecisionOverhead(env: Record<string, string>, prefix: string): Promise<OverheadRow[]> {
  const rig = buildRig(env, prefix);
  try {
    return [...(await measurePath(rig, 'selfhosted')), ...(await measurePath(rig, 'cloud'))];
  } finally {
    rig.redis.disconnect();
  }
}

export function overheadTable(rows: OverheadRow[]): string {
  const us = (ms: number) => (ms * 1000).toFixed(0);
  return table(
    ['path', 'callers', 'calls', 'p50 µs', 'p99 µs', 'max µs', 'decisions/s', 'off path'],
    rows.map((r) => [r.path === 'selfhosted' ? 'self-hosted (100 %, 2 endpoints)' : 'cloud (0 %)', String(r.callers), String(r.calls), us(r.p50), us(r.p99), us(r.max), r.perSecond.toFixed(0), String(r.offPath)]),
    [false, true, true, true, true, true, true, true],
  );
}
