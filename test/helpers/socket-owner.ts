import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** `read()`, or null when the file is gone (a process that exited, a table this kernel lacks). */
function readOrNull<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/** The inodes of the TCP sockets (IPv4 and IPv6) whose local port is `port`, from /proc/net. */
function socketInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = readOrNull(() => readFileSync(table, 'utf8')) ?? '';
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      const localPort = parseInt(cols[1].split(':')[1], 16);
      if (localPort === port) inodes.add(cols[9]);
    }
  }
  return inodes;
}

/**
 * Which of `pids` holds the TCP connection whose local end is `port` (Linux: a socket's inode in
 * /proc/net/tcp matched against each process's open descriptors), or null. A test uses it to learn
 * which worker sent a request it is holding open.
 */
export function processOwningPort(port: number, pids: readonly number[]): number | null {
  const inodes = socketInodes(port);
  if (inodes.size === 0) return null;
  for (const pid of pids) {
    for (const fd of readOrNull(() => readdirSync(`/proc/${pid}/fd`)) ?? []) {
      const target = readOrNull(() => readlinkSync(`/proc/${pid}/fd/${fd}`)) ?? '';
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode && inodes.has(inode)) return pid;
    }
  }
  return null;
}
