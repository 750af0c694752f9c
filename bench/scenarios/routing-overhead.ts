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
import { takesSelfHosted } from '../../src/modules/selfhosted-routing/domain/routing-rules.js';
import { table } from '../lib/report.js';
import { percentile } from '../lib/stats.js';

/**
 * The router's own cost per job, in this process: `SelfHostedRouter.generate` with the real Redis
 * state (the scripts and the round trips every job pays), the real `RoutingDirectory`, and
 * backends that answer at once. The time spent inside the backend's and the fallback's `generate`
 * is taken off each call, so what is left is the decision: plan, choose and claim, settle and
 * count. Only the directory's database read is stood in for (a repository answering fixed rows):
 * it runs on a settings change, not per job.
 */
export const OVERHEAD_WARMUP = 1_500;
/**
 * Sequential calls are measured in rounds of this many calls per path (PING, self-hosted, cloud,
 * taken in turn), and each round has its own p99: this machine has spells of seconds in which even
 * a bare PING's p99 passes 1 ms (Redis's slow log then shows 10 ms for scripts that run in
 * microseconds: the processes were not on a CPU), and the rounds show them.
 */
export const OVERHEAD_ROUND_CALLS = 1_000;
export const OVERHEAD_ROUNDS = 21;
/** A round is quiet when the PING's p99 in it is under this: the machine let a sub-millisecond p99 happen at all. */
export const QUIET_PING_P99_MS = 0.5;
/** The concurrent block: one round of this many calls per path. */
export const OVERHEAD_CALLS = 10_000;
export const OVERHEAD_CALLERS = 8;
/** The rig's routing share: a job's bucket then decides its path, so one router serves both paths in one stream. */
const SHARE = 50;

export type OverheadPath = 'selfhosted' | 'cloud' | 'redis PING';

export interface OverheadRow {
  path: OverheadPath;
  callers: number;
  calls: number;
  /** Per call, in ms; with rounds, the median of the rounds' figures. */
  p50: number;
  p99: number;
  /** Each round's p99, in ms. */
  roundP99s: number[];
  /** The median of the p99s of the quiet rounds (NaN when none was), and how many were. */
  quietP99: number;
  quietRounds: number;
  max: number;
  /** This process's CPU per call, ms (sequential only: at 8 callers the calls overlap). */
  cpuMs: number | null;
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
  clock: InsideClock;
  fallback: ImageGenerator;
  redis: Redis;
}

function buildRig(env: Record<string, string>, prefix: string): Rig {
  const config = new AppConfig(env);
  // As the service's routing connection (RedisConnections.create('routing')): no auto-pipelining.
  const redis = new Redis(config.redisUrl!, { connectionName: 'bench-routing', maxRetriesPerRequest: null, enableReadyCheck: true });
  const state = new RedisRouterState(redis, prefix);
  const routing: RoutingSettings = { enabled: true, percentage: SHARE, updatedAt: new Date() };
  const endpoints = [endpoint('ep_bench_gpu_a'), endpoint('ep_bench_gpu_b')];
  const repo = { routing: async () => ({ ...routing }), listEndpoints: async () => endpoints } as unknown as SelfHostedRepository;
  const directory = new RoutingDirectory({ manager: null } as unknown as DataSource, repo, null as unknown as EndpointSecrets, state);
  const clock = new InsideClock();
  const backend = { kind: 'a1111', generate: async (_t: unknown, req: { seed?: number }) => clock.timed(req.seed), probe: async () => undefined } as unknown as GpuBackend;
  const fallback: ImageGenerator = { provider: 'replicate', generate: async (req: ImageRequest) => clock.timed(req.seed) };
  const router = new SelfHostedRouter(config, directory, state, new GpuBackends([backend]), new Metrics());
  return { router, directory, clock, fallback, redis };
}

/** A job of the given path: its id's bucket puts it there (contract §13's hash), its seed keys the inside clock. */
function request(path: 'selfhosted' | 'cloud', seed: number): ImageRequest {
  const character = { id: 'chr_bench', name: 'Mia', niche: 'travel', aesthetic: 'film grain, golden hour', stylePresets: ['cinematic'], primaryImageUrl: null };
  let jobId = newId('job');
  while (takesSelfHosted(jobId, SHARE) !== (path === 'selfhosted')) jobId = newId('job');
  return { jobId, workspaceId: 'ws_bench', character, prompt: 'Sunrise run by the river', width: 1024, height: 1024, count: 1, seed };
}

const PATHS: OverheadPath[] = ['redis PING', 'selfhosted', 'cloud'];

/**
 * `calls` calls of each path, `callers` at a time, the paths taken in turn call by call, so that
 * whatever the machine does meanwhile (another process, a stolen time slice, a collection) falls
 * on the three alike. Requests are made before the clock starts: a job id is the job's, not the
 * router's. Each call's time inside the stand-ins is taken off.
 */
async function timeInTurn(rig: Rig, calls: number, callers: number): Promise<OverheadRow[]> {
  const reqs = { selfhosted: [] as ImageRequest[], cloud: [] as ImageRequest[] };
  for (let i = 0; i < calls; i++) {
    reqs.selfhosted.push(request('selfhosted', 2 * i));
    reqs.cloud.push(request('cloud', 2 * i + 1));
  }
  const once: Record<OverheadPath, (i: number) => Promise<boolean>> = {
    'redis PING': async () => (await rig.redis.ping()) === 'PONG',
    selfhosted: async (i) => (await rig.router.generate(reqs.selfhosted[i], rig.fallback)).route.route === 'selfhosted',
    cloud: async (i) => (await rig.router.generate(reqs.cloud[i], rig.fallback)).route.route === 'cloud',
  };
  const times = Object.fromEntries(PATHS.map((p) => [p, new Array<number>(calls)])) as Record<OverheadPath, number[]>;
  const cpu = Object.fromEntries(PATHS.map((p) => [p, 0])) as Record<OverheadPath, number>;
  const offPath = Object.fromEntries(PATHS.map((p) => [p, 0])) as Record<OverheadPath, number>;
  rig.clock.inside.length = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < calls * PATHS.length) {
        const n = next++;
        const path = PATHS[n % PATHS.length];
        const i = Math.floor(n / PATHS.length);
        const seed = path === 'selfhosted' ? 2 * i : path === 'cloud' ? 2 * i + 1 : -1;
        const cpu0 = callers === 1 ? process.cpuUsage() : undefined;
        const t0 = performance.now();
        const onPath = await once[path](i);
        times[path][i] = performance.now() - t0 - (rig.clock.inside[seed] ?? 0);
        if (cpu0) {
          const used = process.cpuUsage(cpu0);
          cpu[path] += (used.user + used.system) / 1000;
        }
        if (!onPath) offPath[path]++;
      }
    }),
  );
  return PATHS.map((path) => {
    const t = times[path];
    return {
      path, callers, calls, p50: percentile(t, 50), p99: percentile(t, 99), roundP99s: [percentile(t, 99)], quietP99: Number.NaN, quietRounds: 0, max: Math.max(...t),
      cpuMs: callers === 1 ? cpu[path] / calls : null, offPath: offPath[path], overOneMs: (100 * t.filter((x) => x > 1).length) / calls,
    };
  });
}

/** The rounds of one path as one row: medians of the rounds' p50 and p99 (and of the quiet rounds' p99), the worst max, CPU and shares over all calls. */
function merged(rounds: OverheadRow[], quiet: boolean[]): OverheadRow {
  const median = (xs: number[]) => percentile(xs, 50);
  const quietP99s = rounds.filter((_, i) => quiet[i]).map((r) => r.p99);
  const calls = rounds.reduce((a, r) => a + r.calls, 0);
  const share = (f: (r: OverheadRow) => number) => rounds.reduce((a, r) => a + f(r) * r.calls, 0) / calls;
  return {
    path: rounds[0].path, callers: rounds[0].callers, calls,
    p50: median(rounds.map((r) => r.p50)), p99: median(rounds.map((r) => r.p99)), roundP99s: rounds.map((r) => r.p99),
    quietP99: median(quietP99s), quietRounds: quietP99s.length,
    max: Math.max(...rounds.map((r) => r.max)), cpuMs: share((r) => r.cpuMs ?? 0), overOneMs: share((r) => r.overOneMs),
    offPath: rounds.reduce((a, r) => a + r.offPath, 0),
  };
}

/**
 * The three paths in turn: sequential in rounds, then at 8 callers, each after a warm-up. A Redis
 * PING on the router's connection is the floor under the other two. The self-hosted path makes one
 * Redis step the job waits for (the claim script, which checks the settings version) and writes its
 * outcome behind it; the cloud path makes one (the count, which checks the version). `prefix` keeps
 * the Redis keys apart from any service's.
 */
export async function measureDecisionOverhead(env: Record<string, string>, prefix: string): Promise<OverheadRow[]> {
  const rig = buildRig(env, prefix);
  try {
    // A fresh version: the first call reads the settings, as after the admin's PUT; the warm-up pays for it.
    await rig.directory.changed();
    await timeInTurn(rig, OVERHEAD_WARMUP, 1);
    const rounds: OverheadRow[][] = [];
    for (let r = 0; r < OVERHEAD_ROUNDS; r++) rounds.push(await timeInTurn(rig, OVERHEAD_ROUND_CALLS, 1));
    const quiet = rounds.map((round) => round.find((r) => r.path === 'redis PING')!.p99 < QUIET_PING_P99_MS);
    const sequential = PATHS.map((_, i) => merged(rounds.map((round) => round[i]), quiet));
    await timeInTurn(rig, OVERHEAD_WARMUP, OVERHEAD_CALLERS);
    return [...sequential, ...(await timeInTurn(rig, OVERHEAD_CALLS, OVERHEAD_CALLERS))];
  } finally {
    rig.redis.disconnect();
  }
}

const LABELS: Record<OverheadPath, string> = {
  'redis PING': 'baseline: one Redis PING',
  selfhosted: 'self-hosted (2 endpoints)',
  cloud: 'cloud',
};

export function overheadTable(rows: OverheadRow[]): string {
  const us = (ms: number) => (ms * 1000).toFixed(0);
  return table(
    ['path', 'callers', 'calls', 'p50 µs', 'p99 µs', 'p99 µs, quiet rounds', "rounds' p99 µs min-max", 'max µs', '> 1 ms', 'CPU µs/call', 'off path'],
    rows.map((r) => [
      LABELS[r.path], String(r.callers), String(r.calls), us(r.p50), us(r.p99),
      r.roundP99s.length > 1 ? `${Number.isNaN(r.quietP99) ? '-' : us(r.quietP99)} (${r.quietRounds} of ${r.roundP99s.length})` : '-',
      r.roundP99s.length > 1 ? `${us(Math.min(...r.roundP99s))}-${us(Math.max(...r.roundP99s))}` : '-', us(r.max),
      `${r.overOneMs.toFixed(1)}%`, r.cpuMs === null ? '-' : us(r.cpuMs), String(r.offPath),
    ]),
    [false, true, true, true, true, true, true, true, true, true, true],
  );
}
