import { register, setPlan, adminToken, type Account } from '../lib/accounts.js';
import { createBacking } from '../lib/backing.js';
import { ApiClient, mapLimit } from '../lib/http.js';
import { measure, measureInTurns, type LoadOptions, type LoadSpec, type Measurement } from '../lib/load.js';
import { RssMonitor } from '../lib/memory.js';
import { latencyTarget, memoryTarget, ratioTarget, type Target } from '../lib/report.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import { startApi, type BenchApi } from '../lib/server.js';
import type { BenchSettings } from '../lib/settings.js';

/**
 * Server settings for load. Sign-in is limited per client address, and every request here comes
 * from 127.0.0.1, so seeding many accounts needs a higher sign-in limit. The plan limits (agency:
 * 300 requests/min per workspace) would turn a benchmark into a 429 benchmark, so the limiter is
 * asked to multiply them: it still counts every request in Redis, as in production, and only the
 * threshold moves. The bench checks the answers are 2xx and marks any run that is not.
 */
const LOAD_ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000' };
const SEED_CHARACTERS = 20;
const MAX_WRITER_WORKSPACES = Number(process.env.BENCH_MAX_WRITERS ?? 150);

interface Seed {
  admin: string;
  owner: Account;
  apiKey: string;
}

async function seed(api: ApiClient, stamp: string): Promise<Seed> {
  const admin = await adminToken(api);
  const owner = await setPlan(api, admin, await register(api, `owner-${stamp}@bench.test`), 'agency');
  for (let i = 1; i <= SEED_CHARACTERS; i++) {
    await api.post('/characters', { name: `Seed character ${i}`, niche: 'fitness' }, { token: owner.token, expect: 201 });
  }
  const key = await api.post<{ key: string }>('/api-keys', { name: 'bench', scopes: ['characters:read'] }, { token: owner.token, expect: 201 });
  return { admin, owner, apiKey: key.body.key };
}

/** One request per route before load: the route answers 200, and the limit in force is printed. */
async function probe(api: ApiClient, path: string, token: string): Promise<void> {
  const res = await api.get(path, { token, expect: 200 });
  const limit = res.headers.get('x-ratelimit-limit');
  if (limit !== null && Number(limit) < 10_000) {
    console.log(`  warning: ${path} is limited to ${limit} requests per window; the bench's RATE_LIMIT_MULTIPLIER seems not honoured, expect 429s`);
  }
}

/**
 * Writers for the POST measurement. Each workspace may hold only `character_limit` characters,
 * so creates are spread round-robin over enough fresh agency workspaces that no request hits the
 * limit: every measured request is a real, successful create. The count is sized from the read
 * throughput (an upper bound for writes); if the budget still runs out, the run ends early and the
 * table shows its shorter duration.
 */
async function seedWriters(api: ApiClient, s: Seed, stamp: string, expectedRps: number, opts: LoadOptions): Promise<Account[]> {
  const perWorkspace = s.owner.characterLimit;
  const wanted = Math.ceil((expectedRps * (opts.warmupSeconds + opts.durationSeconds) * 1.25) / perWorkspace);
  const count = Math.max(4, Math.min(MAX_WRITER_WORKSPACES, wanted));
  const started = Date.now();
  // Two at a time: a sign-up burst would measure password hashing, not this benchmark.
  const writers = await mapLimit(Array.from({ length: count }, (_, i) => i), 2, async (i) =>
    setPlan(api, s.admin, await register(api, `writer-${i}-${stamp}@bench.test`), 'agency'),
  );
  console.log(`  seeded ${count} agency workspaces for writes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return writers;
}

function createCharacterSpec(baseUrl: string, writers: Account[]): LoadSpec {
  const capacity = Math.min(...writers.map((w) => w.characterLimit));
  let n = 0;
  return {
    label: 'POST /characters',
    url: `${baseUrl}/characters`,
    method: 'POST',
    // Two short of each workspace's limit, in case autocannon prepares a request it never sends.
    maxRequests: writers.length * (capacity - 2),
    setupRequest: (req) => {
      const i = n++;
      const writer = writers[i % writers.length];
      return {
        ...req,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${writer.token}` },
        body: JSON.stringify({ name: `Bench character ${i}`, niche: 'fitness' }),
      };
    },
  };
}

async function measureAll(server: BenchApi, rss: RssMonitor, settings: BenchSettings, stamp: string): Promise<Measurement[]> {
  const api = new ApiClient(server.baseUrl);
  const opts: LoadOptions = { connections: settings.connections, durationSeconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds };
  const s = await seed(api, stamp);
  console.log(`  seeded owner ${s.owner.workspaceId} (agency), ${SEED_CHARACTERS} characters, an API key with characters:read`);
  await probe(api, '/auth/me', s.owner.token);
  await probe(api, '/characters', s.owner.token);
  await probe(api, '/public/characters', s.apiKey);

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const reads: LoadSpec[] = [
    { label: 'GET /health', url: `${server.baseUrl}/health` },
    { label: 'GET /auth/me', url: `${server.baseUrl}/auth/me`, headers: bearer(s.owner.token) },
    { label: 'GET /characters', url: `${server.baseUrl}/characters`, headers: bearer(s.owner.token) },
    { label: 'GET /public/characters', url: `${server.baseUrl}/public/characters`, headers: bearer(s.apiKey) },
  ];
  const results: Measurement[] = [];
  const run = async (spec: LoadSpec) => {
    console.log(`  ${spec.label}: ${opts.warmupSeconds} s warm-up, ${opts.durationSeconds} s at ${opts.connections} connections`);
    const endWindow = rss.window();
    const m = await measure(spec, opts);
    m.rssPeakMb = endWindow();
    if (server.exited) throw new Error(`the API exited during ${spec.label}:\n${server.output.slice(-30).join('\n')}`);
    results.push(m);
  };
  // The reads take turns so that each ratio to health compares the same stretch of machine time.
  console.log(`  ${reads.map((r) => r.label).join(', ')}: ${opts.warmupSeconds} s warm-up each, then ${settings.rounds} rounds of ${(opts.durationSeconds / settings.rounds).toFixed(1)} s each in turn at ${opts.connections} connections`);
  const endReads = rss.window();
  const measured = await measureInTurns(reads, opts, settings.rounds);
  const readsPeak = endReads();
  if (server.exited) throw new Error(`the API exited during the reads:\n${server.output.slice(-30).join('\n')}`);
  for (const m of measured) results.push({ ...m, rssPeakMb: readsPeak });
  const health = measured[0].rounds ?? [];
  for (const m of measured.slice(1)) {
    const ratios = (m.rounds ?? []).map((rps, i) => `${Math.round((100 * rps) / health[i])}%`);
    console.log(`  ${m.label.padEnd(22)} per round vs health: ${ratios.join(', ')}`);
  }

  const listRps = results.find((m) => m.label === 'GET /characters')?.rps ?? 500;
  const writers = await seedWriters(api, s, stamp, listRps, opts);
  await run(createCharacterSpec(server.baseUrl, writers));
  return results;
}

export const foundation: Scenario = {
  name: 'foundation',
  description: 'health, session and API-key reads, character creates on real PostgreSQL + Redis',
  async run(settings: BenchSettings): Promise<ScenarioResult> {
    const backing = await createBacking(settings, 'foundation');
    try {
      const server = await startApi({ ...backing.env, ...LOAD_ENV });
      const rss = new RssMonitor(server.pid);
      console.log(`  API pid ${server.pid} on ${server.baseUrl} (database ${backing.name}, RSS at start ${rss.current()?.toFixed(0)} MB)`);
      let measurements: Measurement[];
      try {
        measurements = await measureAll(server, rss, settings, Date.now().toString(36));
      } finally {
        rss.stop();
        if (server.problems.length > 0) {
          console.log(`  the API logged ${server.problems.length} warning/error line(s); first ones:`);
          for (const line of server.problems.slice(0, 5)) console.log(`    ${line.slice(0, 300)}`);
        }
        await server.stop();
      }
      const byLabel = (label: string) => measurements.find((m) => m.label === label);
      const health = byLabel('GET /health');
      const peak = rss.peakMb();
      const targets: Target[] = [
        ratioTarget(byLabel('GET /auth/me'), health, 0.6, 'GET /auth/me >= 60% of health req/s'),
        ratioTarget(byLabel('GET /characters'), health, 0.35, 'GET /characters >= 35% of health req/s'),
        ...measurements.map((m) => latencyTarget(m, 50)),
        memoryTarget(peak.sampled, 350),
      ];
      console.log(`  API RSS: peak ${peak.sampled.toFixed(0)} MB sampled every 250 ms from start-up to stop; kernel high-water mark ${peak.highWater.toFixed(0)} MB`);
      return { measurements, targets };
    } finally {
      await backing.release();
    }
  },
};
