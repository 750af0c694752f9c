/**
 * `npm run bench [-- <scenario> ...]`: runs every scenario, or the named ones, against real server
 * processes (dist/src/main.js) on the local PostgreSQL and Redis, prints a table per scenario and
 * PASS/FAIL for its targets. Exit code 0 when every target passes, 1 when one fails, 2 on error.
 */
import { availableParallelism, loadavg } from 'node:os';
import { runCleanups } from './lib/cleanup.js';
import { measurementTable, targetTable } from './lib/report.js';
import { loadSettings } from './lib/settings.js';
import { SCENARIOS } from './scenarios/index.js';

function pickScenarios(args: string[]) {
  const names = args.filter((a) => !a.startsWith('-'));
  if (args.includes('--help') || args.includes('-h')) {
    console.log(`usage: npm run bench [-- <scenario> ...]\nscenarios:\n${SCENARIOS.map((s) => `  ${s.name.padEnd(14)} ${s.description}`).join('\n')}`);
    console.log('environment: BENCH_CONNECTIONS (50), BENCH_DURATION (10 s), BENCH_WARMUP (2 s), BENCH_ROUNDS (3), BENCH_TIMEOUT (300 s per scenario), BENCH_PG_URL, BENCH_REDIS_URL');
    process.exit(0);
  }
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) {
    console.error(`unknown scenario(s): ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }
  return names.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => names.includes(s.name));
}

async function abort(reason: string, code: number): Promise<never> {
  console.error(`\nbench: ${reason}; stopping servers and cleaning up`);
  await runCleanups();
  process.exit(code);
}

async function main(): Promise<number> {
  const settings = loadSettings();
  const scenarios = pickScenarios(process.argv.slice(2));
  process.once('SIGINT', () => void abort('interrupted', 130));
  process.once('SIGTERM', () => void abort('terminated', 143));

  const started = Date.now();
  const cpus = availableParallelism();
  const load = loadavg()[0];
  console.log(`node ${process.version}, ${cpus} cpu(s), load average ${load.toFixed(2)}; ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s per route`);
  if (load > cpus * 0.5) console.log(`warning: the machine is already busy (load ${load.toFixed(2)} on ${cpus} cpus); the numbers will be low and noisy`);
  let failed = 0;
  for (const scenario of scenarios) {
    console.log(`\n=== ${scenario.name}: ${scenario.description}`);
    // The limit is per scenario: a whole run takes as many limits as it has scenarios.
    const limit = setTimeout(() => void abort(`${scenario.name} over its ${settings.timeoutSeconds} s time limit`, 2), settings.timeoutSeconds * 1000);
    const result = await scenario.run(settings).finally(() => clearTimeout(limit));
    const baseline = result.measurements.find((m) => m.label === 'GET /health');
    console.log(`\n${measurementTable(result.measurements, baseline)}\n`);
    if (result.summary) console.log(`${result.summary}\n`);
    console.log(`${targetTable(result.targets)}\n`);
    failed += result.targets.filter((t) => !t.pass).length;
  }
  console.log(`bench finished in ${((Date.now() - started) / 1000).toFixed(0)} s: ${failed === 0 ? 'all targets PASS' : `${failed} target(s) FAIL`}`);
  return failed === 0 ? 0 : 1;
}

main().then(
  async (code) => {
    await runCleanups();
    process.exit(code);
  },
  async (err: unknown) => {
    console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await runCleanups();
    process.exit(2);
  },
);
