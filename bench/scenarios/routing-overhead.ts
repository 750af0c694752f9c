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
  path: 'selfhosted' | 'cloud' | 'redis PING';
  callers: number;
  calls: number;
  /** Per call, in ms. */
  p50: number;
  p99: number;
  max: number;
  /** Decisions per second over the run, all callers together. */
  perSecond: number;
  /** This process's CPU per call, ms. */
  cpuMs: number;
  /** The share of calls over 1 ms, in %: with the PING row, says how much of the tail is the machine's. */
  overOneMs: number;
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

interface Timed {
  /** Per call, in ms, outside the stand-ins. */
  times: number[];
  seconds: number;
  /** CPU this process spent, per call, in ms (user + system): the decision's own work, whatever the machine's load. */
  cpuMs: number;
  offPath: number;
}

/** `calls` calls of `once`, `callers` at a time; `once` answers whether the call took the expected path. */
async function timeCalls(rig: Rig, calls: number, callers: number, once: (i: number) => Promise<boolean>): Promise<Timed> {
  const times = new Array<number>(calls);
  rig.clock.inside.length = 0;
  let next = 0;
  let offPath = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < calls) {
        const i = next++;
        const t0 = performance.now();
        const onPath = await once(i);
        times[i] = performance.now() - t0 - (rig.clock.inside[i] ?? 0);
        if (!onPath) offPath++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { times, seconds, cpuMs: (used.user + used.system) / 1000 / calls, offPath };
}

function row(label: OverheadRow['path'], callers: number, r: Timed): OverheadRow {
  return {
    path: label, callers, calls: r.times.length, p50: percentile(r.times, 50), p99: percentile(r.times, 99), max: Math.max(...r.times),
    perSecond: r.times.length / r.seconds, cpuMs: r.cpuMs, offPath: r.offPath, overOneMs: (100 * r.times.filter((t) => t > 1).length) / r.times.length,
  };
}

/** The warm-up, then the measured run, sequential and at OVERHEAD_CALLERS. */
async function measureCalls(rig: Rig, label: OverheadRow['path'], once: (i: number) => Promise<boolean>): Promise<OverheadRow[]> {
  const rows: OverheadRow[] = [];
  for (const callers of [1, OVERHEAD_CALLERS]) {
    await timeCalls(rig, OVERHEAD_WARMUP, callers, once);
    rows.push(row(label, callers, await timeCalls(rig, OVERHEAD_CALLS, callers, once)));
  }
  return rows;
}

async function measurePath(rig: Rig, path: 'selfhosted' | 'cloud'): Promise<OverheadRow[]> {
  rig.routing.percentage = path === 'selfhosted' ? 100 : 0;
  // Bumps the shared version: the next call reads the settings afresh, as after the admin's PUT.
  await rig.directory.changed();
  // Requests are made before the clock starts: a job id is the job's, not the router's.
  const reqs = Array.from({ length: Math.max(OVERHEAD_WARMUP, OVERHEAD_CALLS) }, (_, i) => request(i));
  return measureCalls(rig, path, async (i) => (await rig.router.generate(reqs[i], rig.fallback)).route.route === path);
}

/**
 * Both paths, sequential and at 8 callers, and a Redis PING on the same connection as the floor
 * under them (the self-hosted path makes six Redis steps in turn: settings version, runtime
 * pipeline, claim script, succeeded script, release, stats pipeline; the cloud path two).
 * `prefix` keeps the Redis keys apart from any service's.
 */
export async function measureDecisionOverhead(env: Record<string, string>, prefix: string): Promise<OverheadRow[]> {
  const rig = buildRig(env, prefix);
  try {
    const ping = await measureCalls(rig, 'redis PING', async () => (await rig.redis.ping()) === 'PONG');
    return [...ping, ...(await measurePath(rig, 'selfhosted')), ...(await measurePath(rig, 'cloud'))];
  } finally {
    rig.redis.disconnect();
  }
}

const LABELS: Record<OverheadRow['path'], string> = {
  'redis PING': 'baseline: one Redis PING',
  selfhosted: 'self-hosted (100 %, 2 endpoints)',
  cloud: 'cloud (0 %)',
};

export function overheadTable(rows: OverheadRow[]): string {
  const us = (ms: number) => (ms * 1000).toFixed(0);
  return table(
    ['path', 'callers', 'calls', 'p50 µs', 'p99 µs', 'max µs', '> 1 ms', 'CPU µs/call', 'calls/s', 'off path'],
    rows.map((r) => [LABELS[r.path], String(r.callers), String(r.calls), us(r.p50), us(r.p99), us(r.max), `${r.overOneMs.toFixed(1)}%`, us(r.cpuMs), r.perSecond.toFixed(0), String(r.offPath)]),
    [false, true, true, true, true, true, true, true, true, true],
  );
}
