/**
 * `npm run bench:compare -- <tree> [path ...]`: this build against another checkout's, side by side.
 *
 * <tree> is another checkout, built: for a commit, `git worktree add /tmp/before <rev>`, link or
 * install its node_modules, `npm run build` there. Each build runs its own API on its own database
 * and Redis prefix, seeded alike (an agency workspace, 20 characters, an API key with
 * characters:read). Then every path of both builds is measured in turns at 50 connections
 * (BENCH_ROUNDS rounds, interleaved), so both builds share every stretch of machine time: on a
 * machine whose speed drifts by a fifth between minutes, this is the steady way to say what a
 * change did. `/public/...` paths use the API key, `/health...` none, others the owner's session.
 * Default paths: /health/ready /auth/me /characters /public/characters.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { adminToken, register, setPlan } from './lib/accounts.js';
import { createBacking, type Backing } from './lib/backing.js';
import { runCommand } from './lib/cleanup.js';
import { CpuCost } from './lib/cpu.js';
import { ApiClient } from './lib/http.js';
import { measureInTurns, type LoadSpec, type Measurement } from './lib/load.js';
import { table } from './lib/report.js';
import { startApi, type BenchApi } from './lib/server.js';
import { loadSettings } from './lib/settings.js';

const DEFAULT_PATHS = ['/health/ready', '/auth/me', '/characters', '/public/characters'];
/** As the foundation scenario: the plan limits lifted, every request still counted. */
const LOAD_ENV = { AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000' };
const SEED_CHARACTERS = 20;

interface Build {
  name: 'other' | 'this';
  backing: Backing;
  api: BenchApi;
  session: string;
  apiKey: string;
}

async function startBuild(name: Build['name'], root: string | undefined, label: string): Promise<Build> {
  const settings = loadSettings();
  const backing = await createBacking(settings, `compare_${label}`);
  const api = await startApi({ ...backing.env, ...LOAD_ENV }, root);
  const client = new ApiClient(api.baseUrl);
  const owner = await setPlan(client, await adminToken(client), await register(client, `compare-${name}-${Date.now()}@bench.test`), 'agency');
  for (let i = 1; i <= SEED_CHARACTERS; i++) await client.post('/characters', { name: `Compared ${i}`, niche: 'fitness' }, { token: owner.token, expect: 201 });
  const key = await client.post<{ key: string }>('/api-keys', { name: 'compare', scopes: ['characters:read'] }, { token: owner.token, expect: 201 });
  return { name, backing, api, session: owner.token, apiKey: key.body.key };
}

function specOf(build: Build, path: string): LoadSpec {
  const token = path.startsWith('/health') ? undefined : path.startsWith('/public/') ? build.apiKey : build.session;
  return { label: `${build.name}: GET ${path}`, url: `${build.api.baseUrl}${path}`, headers: token ? { authorization: `Bearer ${token}` } : {} };
}

const perRequestUs = (m: Measurement, part: string) => Math.round(((m.cpuMs?.[part] ?? 0) * 1000) / Math.max(1, m.requests));

async function main(): Promise<void> {
  const [treeArg, ...pathArgs] = process.argv.slice(2);
  if (!treeArg) throw new Error('usage: npm run bench:compare -- <other checkout, built> [path ...]');
  const tree = resolve(treeArg);
  if (!existsSync(join(tree, 'dist/src/main.js'))) throw new Error(`${tree} has no build: run npm run build there first`);
  const paths = pathArgs.length > 0 ? pathArgs : DEFAULT_PATHS;
  const settings = loadSettings();

  const other = await startBuild('other', tree, 'other');
  const mine = await startBuild('this', undefined, 'this');
  const builds = [other, mine];
  const specs = paths.flatMap((p) => builds.map((b) => specOf(b, p)));
  const cost = new CpuCost({ other: { pids: [other.api.pid] }, this: { pids: [mine.api.pid] }, postgres: { comm: 'postgres' }, redis: { comm: 'redis-server' } });
  const opts = { connections: settings.connections, durationSeconds: settings.durationSeconds * 2, warmupSeconds: settings.warmupSeconds };
  console.log(`  ${paths.length} paths × 2 builds in turns: ${settings.rounds * 2} rounds of ${(settings.durationSeconds / settings.rounds).toFixed(1)} s each at ${opts.connections} connections (other: ${tree})`);
  const measured = await measureInTurns(specs, opts, settings.rounds * 2, cost);
  for (const b of builds) if (b.api.exited) throw new Error(`the ${b.name} API exited:\n${b.api.output.slice(-20).join('\n')}`);

  const rows = paths.map((path, i) => {
    const [o, t] = [measured[2 * i], measured[2 * i + 1]];
    const bad = o.non2xx + o.errors + t.non2xx + t.errors;
    return [
      `GET ${path}`,
      `${o.rps.toFixed(0)} (${perRequestUs(o, 'other')}, ${perRequestUs(o, 'postgres')})`,
      `${t.rps.toFixed(0)} (${perRequestUs(t, 'this')}, ${perRequestUs(t, 'postgres')})`,
      `${((100 * t.rps) / o.rps).toFixed(0)}%`,
      bad === 0 ? 'ok' : `${bad} not 2xx`,
    ];
  });
  console.log(table(['route', 'other: req/s (API, PostgreSQL CPU µs per request)', 'this: req/s (API, PostgreSQL CPU µs)', 'this / other', 'answers'], rows, [false, true, true, true, false]));
  for (const b of builds) await b.api.stop();
  for (const b of builds) await b.backing.release();
}

runCommand('compare', main);
