import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  url: string;
  /** The directory holding the server's Unix socket (only this process's user may enter it). */
  socketDir: string;
  stop(): Promise<void>;
}

/** The name libpq and node-postgres look for in a socket directory, for port 5432. */
const SOCKET_FILE = '.s.PGSQL.5432';
/** A Unix socket path must fit sun_path: 108 bytes on Linux, 104 on macOS. */
const MAX_SOCKET_PATH = 100;

/**
 * Serves PGlite so TypeORM uses its ordinary `postgres` driver and the same migrations as
 * production. PGlite has no authentication, so it is not put on TCP, where any local process
 * could connect and read `users.password_hash`: it listens on a Unix socket in a directory of
 * mode 0700 (`DATA_DIR/run`), which only this process's user (the owner of the data files
 * anyway) and root can enter; the data files themselves are kept 0700 too. PGlite runs one
 * transaction at a time; the socket server queues the rest.
 */
export async function startEmbeddedPostgres(dataDir: string, maxConnections: number): Promise<EmbeddedPostgres> {
  const dir = privateDir(join(dataDir, 'pglite'));
  const { socketDir, temporary } = socketDirectory(dataDir);
  const socketPath = join(socketDir, SOCKET_FILE);
  await clearStaleSocket(socketPath, dir);
  const db = await PGlite.create(dir);
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections });
  try {
    await server.start();
  } catch (err) {
    await db.close();
    throw err;
  }
  return {
    // node-postgres reads a `host` that starts with `/` as a socket directory (the URL's host and
    // port only name the socket file, .s.PGSQL.5432, and keep TypeORM's URL parser content).
    url: `postgres://postgres@localhost:5432/postgres?host=${encodeURIComponent(socketDir)}&sslmode=disable`,
    socketDir,
    async stop() {
      await server.stop(); // closing the server removes the socket file
      await db.close();
      if (temporary) rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

function privateDir(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700); // also for a directory made before, or made wider by the umask
  return path;
}

/** `DATA_DIR/run`, or, when that path is too long for a socket, a private temporary directory. */
function socketDirectory(dataDir: string): { socketDir: string; temporary: boolean } {
  const preferred = join(dataDir, 'run');
  if (Buffer.byteLength(join(preferred, SOCKET_FILE)) <= MAX_SOCKET_PATH) return { socketDir: privateDir(preferred), temporary: false };
  return { socketDir: mkdtempSync(join(tmpdir(), 'persona-pg-')), temporary: true }; // mkdtemp makes it 0700
}

/** PGlite serves one process: a second server or CLI on the same data directory is refused with this. */
export class EmbeddedDatabaseInUse extends Error {
  constructor(dataDir: string, socketPath: string) {
    super(`the embedded database in ${dataDir} is already served by another process (${socketPath}); stop it or use another DATA_DIR`);
    this.name = 'EmbeddedDatabaseInUse';
  }
}

/**
 * A socket file left by a process that died is removed; one that still answers belongs to a
 * running server on the same data directory, and PGlite must not be opened twice.
 */
async function clearStaleSocket(socketPath: string, dataDir: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(socketPath).isSocket();
  } catch {
    return;
  }
  if (!isSocket) throw new Error(`${socketPath} exists and is not a socket; remove it to start the embedded database`);
  const answers = await new Promise<boolean>((resolveAnswer) => {
    const probe = connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolveAnswer(true);
    });
    probe.once('error', () => resolveAnswer(false));
  });
  if (answers) throw new EmbeddedDatabaseInUse(dataDir, socketPath);
  rmSync(socketPath, { force: true });
}
