import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { api, registerUser } from '../helpers/api.js';
import { createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';

/** TCP ports a process listens on, read from /proc: its socket inodes matched to LISTEN rows. */
function listeningTcpPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const target = (() => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return ''; // closed meanwhile
      }
    })();
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m) inodes.add(m[1]);
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '0A' || !inodes.has(cols[9])) continue; // 0A: LISTEN
      ports.add(parseInt(cols[1].split(':')[1], 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

const mode = (path: string) => lstatSync(path).mode & 0o777;

/**
 * The embedded PostgreSQL (PGlite) has no password: it must not be reachable over TCP, where any
 * local process could connect and read users.password_hash, but only through a Unix socket in a
 * directory that only the server's user may enter. Runs on the embedded defaults in both modes.
 */
describe('embedded database', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking({ services: false });
    server = await startServer(backing);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('serves the API from a database no TCP client can reach', async () => {
    const user = await registerUser(server);
    const me = await api(server).get('/auth/me').set(user.auth);
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe(user.user.email);

    // The HTTP port is the process's only TCP listener: no database port beside it.
    expect(listeningTcpPorts(server.child.pid!)).toEqual([server.port]);
  });

  it('keeps its socket and its data files in directories only their owner may enter', () => {
    const dataDir = backing.env.DATA_DIR;
    const socket = join(dataDir, 'run', '.s.PGSQL.5432');
    expect(lstatSync(socket).isSocket()).toBe(true);
    expect(mode(join(dataDir, 'run'))).toBe(0o700);
    expect(mode(join(dataDir, 'pglite'))).toBe(0o700);
    expect(lstatSync(join(dataDir, 'run')).uid).toBe(process.getuid!());
  });

  it('refuses a second server on the same data directory, with one line saying why', async () => {
    const second = await startServer(backing).then((started) => started, (err: Error) => err);
    if (!(second instanceof Error)) await second.stop(); // opened the same files twice: stop it, then fail
    expect(second).toBeInstanceOf(Error);
    expect((second as Error).message).toMatch(/the embedded database in .* is already served by another process/);
    const again = await api(server).get('/auth/me').set((await registerUser(server)).auth);
    expect(again.status).toBe(200);
  });

  it('admin:create while the server holds the database says to stop it or to use ADMIN_EMAIL/ADMIN_PASSWORD', () => {
    const cli = spawnSync(process.execPath, [resolve(import.meta.dirname, '../../dist/src/cli/admin-create.js'), '--email', 'ops@e2e.test', '--password', 'a long enough passphrase'], {
      env: { ...process.env, ...backing.env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/already served by another process/);
    expect(cli.stderr).toMatch(/stop it and run admin:create again, or\nrestart it with ADMIN_EMAIL and ADMIN_PASSWORD set/);
  });

  it('starts again after a crash left its socket file behind', async () => {
    await server.stop('SIGKILL');
    expect(lstatSync(join(backing.env.DATA_DIR, 'run', '.s.PGSQL.5432')).isSocket()).toBe(true);
    server = await startServer(backing);
    const user = await registerUser(server);
    expect((await api(server).get('/auth/me').set(user.auth)).status).toBe(200);
    expect(listeningTcpPorts(server.child.pid!)).toEqual([server.port]);
  }, 150_000);
});
