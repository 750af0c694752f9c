import { afterAll, beforeAll } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { freePort } from '../support/free-port.js';
import { E2E_MODE, PG_ADMIN_URL, REDIS_URL } from './env.js';

const ROOT = resolve(import.meta.dirname, '../..');
export const ADMIN_EMAIL = 'admin@e2e.test';
export const ADMIN_PASSWORD = 'admin-password-123';

export interface Backing {
  /** Environment shared by every process of one test file: database, Redis prefix, data dir, secrets. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export interface RunningProcess {
  child: ChildProcess;
  output: string[];
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface TestServer extends RunningProcess {
  url: string;
  port: number;
  wsUrl: string;
}

let counter = 0;
function uniqueName(): string {
  counter += 1;
  return `e2e_${process.pid}_${Date.now().toString(36)}_${counter}`;
}

/**
 * A fresh, private backing store for one test file. `services`: a new database on the local
 * PostgreSQL and a private Redis prefix. `embedded`: a new data directory (PGlite, no Redis).
 * Both start as a copy of the run's migrated template (test/support/e2e-templates.mjs) when there is
 * one; `fresh: true` gives an empty database instead (a test that migrates it itself).
 */
export async function createBacking(opts: { services?: boolean; fresh?: boolean } = {}): Promise<Backing> {
  const name = uniqueName();
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-`));
  const pgTemplate = opts.fresh ? undefined : process.env.E2E_PG_TEMPLATE;
  const embeddedTemplate = opts.fresh ? undefined : process.env.E2E_EMBEDDED_TEMPLATE;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    JWT_SECRET: `jwt-secret-${name}-0123456789abcdef0123456789`,
    TOKEN_ENCRYPTION_KEY: `enc-key-${name}-0123456789abcdef0123456789`,
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
  };
  const services = opts.services ?? E2E_MODE === 'services';
  if (!services) {
    if (embeddedTemplate) cpSync(join(embeddedTemplate, 'pglite'), join(dataDir, 'pglite'), { recursive: true });
    return { env, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(pgTemplate ? `CREATE DATABASE ${name} TEMPLATE ${pgTemplate}` : `CREATE DATABASE ${name}`);
  await admin.end();
  const dbUrl = new URL(PG_ADMIN_URL);
  dbUrl.pathname = `/${name}`;
  env.DATABASE_URL = dbUrl.toString();
  env.REDIS_URL = REDIS_URL;
  env.REDIS_PREFIX = name;
  return {
    env,
    async cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await c.end();
    },
  };
}

function launch(script: string, env: Record<string, string>, readyLine: RegExp, timeoutMs = 90_000): Promise<{ proc: RunningProcess; match: RegExpMatchArray }> {
  const child = spawn(process.execPath, [join(ROOT, 'dist/src', script)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let exited = false;
  const exitedPromise = new Promise<void>((res) => child.once('exit', () => { exited = true; res(); }));
  const proc: RunningProcess = {
    child,
    output,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (exited) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exitedPromise;
      clearTimeout(timer);
    },
  };
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`${script} not ready in ${timeoutMs} ms:\n${output.join('')}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output.push(text);
      if (output.length > 2000) output.splice(0, output.length - 2000);
      if (process.env.E2E_VERBOSE) process.stderr.write(text);
      const m = output.join('').match(readyLine);
      if (m) {
        clearTimeout(timer);
        res({ proc, match: m });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`${script} exited with ${code} before it was ready:\n${output.join('')}`));
    });
  });
}

/**
 * Starts the API (dist/src/main.js) on a free port against `backing`, with PUBLIC_URL on that
 * port: the addresses the service hands out (OAuth callbacks, media) must reach it.
 */
export async function startServer(backing: Backing, extraEnv: Record<string, string> = {}): Promise<TestServer> {
  for (let attempt = 1; ; attempt += 1) {
    const free = await freePort();
    const env = { ...backing.env, PORT: String(free), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${free}`, ...extraEnv };
    try {
      const { proc, match } = await launch('main.js', env, /"msg":"api listening","port":(\d+)/);
      const port = Number(match[1]);
      return { ...proc, port, url: `http://127.0.0.1:${port}/api/v1`, wsUrl: `ws://127.0.0.1:${port}/api/v1/ws` };
    } catch (err) {
      // Another file's server may bind the probed port between the probe and the start.
      if (attempt >= PORT_ATTEMPTS || !String(err).includes('EADDRINUSE')) throw err;
    }
  }
}

/** Times a server start is tried on a freshly probed port when the last one was taken meanwhile. */
const PORT_ATTEMPTS = 5;

/**
 * For a describe block: two API instances on one fresh PostgreSQL database and Redis prefix,
 * started before its tests and stopped after them. Read `a` and `b` inside the tests.
 */
export function twoInstancesSharingRedis(extraEnv: Record<string, string> = {}): { a: TestServer; b: TestServer } {
  const pair = {} as { a: TestServer; b: TestServer };
  let backing: Backing | undefined;
  beforeAll(async () => {
    backing = await createBacking({ services: true });
    [pair.a, pair.b] = await Promise.all([startServer(backing, extraEnv), startServer(backing, extraEnv)]);
  });
  afterAll(async () => {
    await Promise.all([pair.a?.stop(), pair.b?.stop()]);
    await backing?.cleanup();
  });
  return pair;
}

/** Starts a worker process (dist/src/worker.js) against `backing`. */
export async function startWorker(backing: Backing, extraEnv: Record<string, string> = {}): Promise<RunningProcess> {
  const { proc } = await launch('worker.js', { ...backing.env, ...extraEnv }, /"msg":"worker ready"/);
  return proc;
}

/** Polls `check` until it answers a truthy value or the time runs out. */
export async function waitFor<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  // Looks again soon at first (most conditions hold within a few tens of ms), then every 50 ms.
  for (let pause = 10; ; pause = Math.min(50, pause * 1.5)) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

/**
 * Rate-limit windows are fixed and aligned to the clock (see `windowKey`): requests a test needs
 * in one window must not straddle an edge. When the current `windowSeconds` window has less than
 * `needMs` left, waits until the next one begins (server and test share the clock).
 */
export async function withinOneWindow(windowSeconds: number, needMs: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const left = () => windowMs - (Date.now() % windowMs);
  if (left() >= needMs) return;
  const next = Date.now() + left();
  await waitFor(async () => Date.now() >= next, windowMs, 'the next rate-limit window');
}
