import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { createBacking, waitFor, type Backing } from '../../helpers/server.js';
import { freePort } from '../../support/free-port.js';

const run = promisify(execFile);

/**
 * Throwaway PostgreSQL and Redis servers for one fault test file, on free loopback ports, so a test
 * can stop, start and kill them without touching the machine's shared servers (5432, 6379) that
 * other suites use.
 */
export interface PrivateService {
  port: number;
  /** A URL to reach it: PostgreSQL's `postgres` database as superuser, or Redis. */
  url: string;
  /** A clean stop (PostgreSQL: fast shutdown; Redis: SIGTERM, nothing saved). */
  stop(): Promise<void>;
  /** Starts it again on the same port (PostgreSQL keeps its data; Redis comes back empty). */
  start(): Promise<void>;
  /** SIGKILL, no shutdown at all. */
  kill(): Promise<void>;
  /** Stops it if running and removes its files. */
  cleanup(): Promise<void>;
}

function postgresBinDir(): string {
  const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('no PostgreSQL under /usr/lib/postgresql/*/bin');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/** Runs a PostgreSQL binary as the postgres user when we are root (PostgreSQL refuses root). */
function asPostgres(bin: string, args: string[]): Promise<unknown> {
  return process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', bin, ...args]) : run(bin, args);
}

export async function startPrivatePostgres(): Promise<PrivateService> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'fault-pg-'));
  if (process.getuid?.() === 0) chownSync(dir, Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout));
  const data = join(dir, 'data');
  await asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100`;
  let running = false;
  const service: PrivateService = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await asPostgres(join(bin, 'pg_ctl'), ['start', '-w', '-t', '60', '-D', data, '-l', join(dir, 'log'), '-o', options]);
      running = true;
    },
    async stop() {
      if (!running) return;
      await asPostgres(join(bin, 'pg_ctl'), ['stop', '-w', '-m', 'fast', '-D', data]);
      running = false;
    },
    async kill() {
      if (!running) return;
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      await waitFor(async () => !alive(pid), 10_000, 'the killed postmaster to exit');
      // Its backends notice the postmaster's death on their own; the next start clears what is left.
      rmSync(join(data, 'postmaster.pid'), { force: true });
      running = false;
    },
    async cleanup() {
      await service.stop().catch(() => service.kill());
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await service.start();
  return service;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startPrivateRedis(): Promise<PrivateService> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fault-redis-'));
  let child: ChildProcess | undefined;
  const exited = () => new Promise<void>((r) => (child && child.exitCode === null && child.signalCode === null ? child.once('exit', () => r()) : r()));
  const service: PrivateService = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
      const output: string[] = [];
      child.stdout?.on('data', (c: Buffer) => output.push(c.toString()));
      child.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
      await waitFor(async () => output.join('').includes('Ready to accept connections') || (child?.exitCode !== null ? Promise.reject(new Error(output.join(''))) : false), 15_000, 'private redis-server');
    },
    async stop() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const done = exited();
      child.kill('SIGTERM');
      await done;
    },
    async kill() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const done = exited();
      child.kill('SIGKILL');
      await done;
    },
    async cleanup() {
      await service.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await service.start();
  return service;
}

/**
 * A backing store on private servers: a fresh database on `postgres`, `redis` with a private
 * prefix, a data directory and secrets (as `createBacking`).
 */
export async function createPrivateBacking(postgres: PrivateService, redis: PrivateService): Promise<Backing> {
  const base = await createBacking({ services: false });
  const name = `fault_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const dbUrl = new URL(postgres.url);
  dbUrl.pathname = `/${name}`;
  return {
    env: { ...base.env, DATABASE_URL: dbUrl.toString(), REDIS_URL: redis.url, REDIS_PREFIX: name },
    cleanup: () => base.cleanup(),
  };
}
