/**
 * `npm run bench:profile -- <path> [seconds]`: where one route's time goes. Starts the API under
 * V8's sampling profiler (--cpu-prof), seeds an agency workspace (20 characters, an API key with
 * characters:read), loads `GET <path>` at 50 connections for `seconds` (default 10), stops the API
 * and prints the functions with the most self time, grouped by package. The .cpuprofile file is
 * kept for a flame graph (Chrome DevTools, speedscope). `/public/...` paths use the API key.
 * `npm run bench:profile -- POST /characters [seconds]` profiles character creation instead, spread
 * over enough agency workspaces that none reaches its character limit. `/l/<shortcode>` seeds a link
 * of that shortcode and follows it as a browser, so every request is a counted click.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminToken, register, setPlan } from './lib/accounts.js';
import { createBacking } from './lib/backing.js';
import { runCommand } from './lib/cleanup.js';
import { ApiClient, mapLimit } from './lib/http.js';
import { measure, type LoadSpec } from './lib/load.js';
import { startApi } from './lib/server.js';
import { loadSettings } from './lib/settings.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds on the monotonic clock, which every process on the machine shares. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

/** Microseconds on the monotonic clock, as V8 stamps profiles. */
const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** Self time per function and per package, as shares of the samples taken in [fromUs, toUs]. */
function summarise(profile: CpuProfile, fromUs: number, toUs: number, requests: number, top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let at = profile.startTime;
  for (const [i, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= fromUs && at <= toUs) self.set(id, (self.get(id) ?? 0) + delta);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map<string, number>();
  const packages = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url.replace(/^file:\/\//, '').replace(/^.*?\/(node_modules|dist)\//, '$1/');
    add(fns, `${functionName || '(anonymous)'}  ${where}:${lineNumber + 1}`, us);
    add(packages, packageOf(url, functionName), us);
  }
  // Idle samples are time the API waited, not work: left out of the per-request cost.
  const busy = total - (packages.get('(idle)') ?? 0);
  const rows = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, us]) => `  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / requests).toFixed(1).padStart(6)} µs/req  ${k}`).join('\n');
  return `busy ${(busy / requests).toFixed(0)} µs of API CPU per request (profiler included)\n\nself time by package:\n${rows(packages)}\n\nself time by function (top ${top}):\n${rows(fns)}`;
}

function add(totals: Map<string, number>, key: string, us: number): void {
  totals.set(key, (totals.get(key) ?? 0) + us);
}

function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  if (url.includes('/dist/src/')) return `app: ${url.split('/dist/src/')[1].split('/').slice(0, 2).join('/')}`;
  return url;
}

/** Creates spread over agency workspaces enough for `seconds` at up to 600 a second, each kept under its limit. */
async function createSpec(api: ApiClient, baseUrl: string, seconds: number): Promise<LoadSpec> {
  const admin = await adminToken(api);
  const perWorkspace = 95;
  const count = Math.ceil((600 * seconds) / perWorkspace);
  const writers = await mapLimit(Array.from({ length: count }, (_, i) => i), 2, async (i) =>
    setPlan(api, admin, await register(api, `profile-writer-${i}-${Date.now()}@bench.test`), 'agency'),
  );
  let n = 0;
  return {
    label: 'POST /characters',
    url: `${baseUrl}/characters`,
    method: 'POST',
    maxRequests: count * perWorkspace,
    setupRequest: (req) => {
      const writer = writers[n % writers.length];
      n++;
      return { ...req, method: 'POST', headers: { authorization: `Bearer ${writer.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `Profiled create ${n}`, niche: 'fitness' }) };
    },
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const creating = args[0] === 'POST';
  const [path = '/auth/me', secondsArg = '10'] = creating ? args.slice(1) : args;
  if (creating && path !== '/characters') throw new Error('POST profiles /characters only');
  const settings = loadSettings();
  const dir = mkdtempSync(join(tmpdir(), 'persona-profile-'));
  process.env.BENCH_NODE_FLAGS = `${process.env.BENCH_NODE_FLAGS ?? '--max-semi-space-size=16 --max-old-space-size=256'} --cpu-prof --cpu-prof-dir=${dir}`;
  const backing = await createBacking(settings, 'profile');
  /** The measurement's start and end on the monotonic clock. */
  const measured = { from: 0, to: 0, requests: 1 };
  try {
    const server = await startApi({ ...backing.env, AUTH_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_MULTIPLIER: '1000', OPEN_RATE_LIMIT_PER_MINUTE: '100000000' });
    const api = new ApiClient(server.baseUrl);
    const owner = await setPlan(api, await adminToken(api), await register(api, `profile-${Date.now()}@bench.test`), 'agency');
    let characterId = '';
    for (let i = 1; i <= 20; i++) {
      characterId = (await api.post<{ character: { id: string } }>('/characters', { name: `Profiled ${i}`, niche: 'fitness' }, { token: owner.token, expect: 201 })).body.character.id;
    }
    const key = await api.post<{ key: string }>('/api-keys', { name: 'profile', scopes: ['characters:read'] }, { token: owner.token, expect: 201 });
    const token = path.startsWith('/public/') ? key.body.key : owner.token;
    const shortcode = /^\/l\/([^/?]+)$/.exec(path)?.[1];
    if (shortcode) {
      // The public redirect: a link with that shortcode, followed by a browser (so each click is counted), with no credentials.
      await api.post(`/characters/${characterId}/links`, { destination_url: 'https://shop.example.com/p/1', shortcode }, { token: owner.token, expect: 201 });
    }
    const seconds = Number(secondsArg);
    const spec = creating
      ? await createSpec(api, server.baseUrl, seconds + settings.warmupSeconds)
      : { label: `GET ${path}`, url: `${server.baseUrl}${path}`, headers: path === '/health' ? {} : shortcode ? { 'user-agent': BROWSER } : { authorization: `Bearer ${token}` } };
    // Start-up and seeding are left out: only the samples taken while the route was measured count.
    measured.from = monotonicUs();
    const m = await measure(spec, { connections: settings.connections, durationSeconds: seconds, warmupSeconds: settings.warmupSeconds });
    measured.to = monotonicUs();
    measured.requests = m.requests;
    console.log(`${spec.label}: ${m.rps.toFixed(0)} req/s at ${settings.connections} connections, p50 ${m.p50} ms, p99 ${m.p99} ms (under the profiler, which costs some)`);
    await server.stop();
  } finally {
    await backing.release();
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written to ${dir}: the API must exit normally on SIGTERM for --cpu-prof to write it`);
  console.log(`profile: ${join(dir, file)}\n`);
  console.log(summarise(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, measured.from, measured.to, measured.requests, 30));
}

runCommand('profile', main);
