import { appendFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { freePort } from '../../test/support/free-port.js';
import { join, resolve } from 'node:path';
import { onCleanup } from './cleanup.js';

/** dist/bench/lib → the project root. */
const ROOT = resolve(import.meta.dirname, '../../..');

export interface BenchProcess {
  pid: number;
  /** The last lines the process printed (kept for failure reports). */
  output: string[];
  /** Warning and error log lines the process printed so far. */
  problems: string[];
  exited: boolean;
  stop(): Promise<void>;
}

export interface BenchApi extends BenchProcess {
  port: number;
  /** http://127.0.0.1:<port>/api/v1 */
  baseUrl: string;
}

/** The V8 flags of `npm run start:prod` and the Docker image; BENCH_NODE_FLAGS, read at each start, overrides them. */
const serverNodeFlags = (): string[] => (process.env.BENCH_NODE_FLAGS ?? '--max-semi-space-size=16 --max-old-space-size=256').split(' ').filter(Boolean);

function launch(script: string, env: Record<string, string>, ready: RegExp, timeoutMs: number, root = ROOT): Promise<{ proc: BenchProcess; match: RegExpMatchArray }> {
  // The servers run with the V8 flags of the production start command (package.json start:prod).
  const child = spawn(process.execPath, [...serverNodeFlags(), join(root, 'dist/src', script)], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exitedPromise = new Promise<void>((res) => child.once('exit', () => res()));
  let stopping: Promise<void> | undefined;
  const proc: BenchProcess = {
    pid: child.pid ?? -1,
    output: [],
    problems: [],
    exited: false,
    stop() {
      stopping ??= (async () => {
        if (proc.exited) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exitedPromise;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
  const unregister = onCleanup(`${script} pid ${proc.pid}`, () => proc.stop());
  child.once('exit', () => {
    proc.exited = true;
    void unregister();
  });

  let seen = '';
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`${script} not ready in ${timeoutMs} ms:\n${proc.output.join('\n')}`)), timeoutMs);
    const onLine = (line: string) => {
      // BENCH_SERVER_LOG=<prefix> keeps every line a server prints in <prefix>.<script>.<pid> (with
      // BENCH_NODE_FLAGS='... --trace-gc', the collector's pauses beside the figures).
      if (process.env.BENCH_SERVER_LOG) appendFileSync(`${process.env.BENCH_SERVER_LOG}.${script}.${proc.pid}`, `${line}\n`);
      proc.output.push(line);
      if (proc.output.length > 200) proc.output.shift();
      if (/"level":"(warn|error)"|^\S*error/i.test(line) && proc.problems.length < 50) proc.problems.push(line);
    };
    const onData = (chunk: Buffer) => {
      const text = seen + chunk.toString();
      const lines = text.split('\n');
      seen = lines.pop() ?? '';
      for (const line of lines) {
        onLine(line);
        const m = line.match(ready);
        if (m) {
          clearTimeout(timer);
          res({ proc, match: m });
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      rej(new Error(`${script} exited (${code ?? signal}) before it was ready:\n${proc.output.join('\n')}`));
    });
  });
}

/**
 * Starts the API (dist/src/main.js) on a free loopback port; the caller's env wins over the defaults.
 * `root` is the checkout whose build runs: this one, or another for a side-by-side comparison.
 */
export async function startApi(env: Record<string, string>, root = ROOT): Promise<BenchApi> {
  const free = await freePort();
  const { proc, match } = await launch(
    'main.js',
    // PUBLIC_URL on the real port: the addresses the service hands out (OAuth callbacks) must reach it.
    { NODE_ENV: 'production', LOG_LEVEL: 'warn', PUBLIC_URL: `http://127.0.0.1:${free}`, ...env, PORT: String(free), HOST: '127.0.0.1' },
    /"msg":"api listening","port":(\d+)/,
    60_000,
    root,
  );
  const port = Number(match[1]);
  const baseUrl = `http://127.0.0.1:${port}/api/v1`;
  if (env.DATABASE_URL) databases.set(baseUrl, env.DATABASE_URL);
  return Object.assign(proc, { port, baseUrl });
}

/** The database each started API keeps its data in, by its base URL. */
const databases = new Map<string, string>();

/**
 * Where the API at `baseUrl` keeps its data: the bench reads there what a user would read in their
 * inbox (a production API keeps unsent mail in `mail_messages`, with no development mailbox).
 */
export function databaseOf(baseUrl: string): string {
  const url = databases.get(baseUrl);
  if (!url) throw new Error(`no API with a database was started at ${baseUrl}`);
  return url;
}

/** Starts a worker (dist/src/worker.js), for scenarios whose work runs on the queue. */
export async function startWorker(env: Record<string, string>): Promise<BenchProcess> {
  const { proc } = await launch('worker.js', { NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env }, /"msg":"worker ready"/, 60_000);
  return proc;
}

/** Prints, per process, how many warning or error lines it logged and the first of them. */
export function reportProblems(processes: BenchProcess[]): void {
  for (const p of processes) {
    if (p.problems.length > 0) console.log(`  pid ${p.pid} logged ${p.problems.length} warning/error line(s); first: ${p.problems[0].slice(0, 300)}`);
  }
}
