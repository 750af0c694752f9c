import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Clock ticks per second of /proc's CPU times (almost always 100 on Linux). */
const TICKS_PER_SECOND = (() => {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU a process has used, in ms (Linux /proc); undefined once it is gone. */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: utime is the 14th field, stime the 15th.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(rest[11]) + Number(rest[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Busy and total CPU time of the whole machine, in ms summed over all cpus; undefined off Linux. */
function machineCpuMs(): { busy: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = v.reduce((a, b) => a + b, 0);
    const idle = v[3] + (v[4] ?? 0);
    return { busy: ((total - idle) * 1000) / TICKS_PER_SECOND, total: (total * 1000) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

interface Snapshot {
  at: number;
  procs: Record<string, number | undefined>;
  self: number;
  machine?: { busy: number; total: number };
}

/** CPU used during one window, in % of one cpu (100% = one cpu busy for the whole window). */
export interface CpuShare {
  seconds: number;
  /** Per named process (e.g. api, worker). */
  procs: Record<string, number>;
  /** This bench process (autocannon, the socket client). */
  bench: number;
  /** Everything else on the machine: PostgreSQL, Redis, other users' work. */
  rest: number;
  /** The whole machine, busy, in % of one cpu; at most cpus × 100. */
  machine: number;
  cpus: number;
}

/**
 * Where the machine's CPU goes while a phase runs: the named processes, the bench itself, and the
 * rest of the machine. Read from outside (/proc), so the servers are measured as they run.
 */
export class CpuMeter {
  constructor(private readonly pids: Record<string, number>) {}

  snapshot(): Snapshot {
    const procs: Record<string, number | undefined> = {};
    for (const [name, pid] of Object.entries(this.pids)) procs[name] = processCpuMs(pid);
    const self = process.cpuUsage();
    return { at: performance.now(), procs, self: (self.user + self.system) / 1000, machine: machineCpuMs() };
  }

  /** Starts a window; the function it answers ends it and answers the shares within it. */
  window(): () => CpuShare {
    const start = this.snapshot();
    return () => this.between(start, this.snapshot());
  }

  private between(a: Snapshot, b: Snapshot): CpuShare {
    const wallMs = Math.max(1, b.at - a.at);
    const pct = (ms: number) => (ms / wallMs) * 100;
    const procs: Record<string, number> = {};
    let named = 0;
    for (const name of Object.keys(this.pids)) {
      const used = (b.procs[name] ?? a.procs[name] ?? 0) - (a.procs[name] ?? 0);
      procs[name] = pct(Math.max(0, used));
      named += Math.max(0, used);
    }
    const bench = b.self - a.self;
    const cpus = availableParallelism();
    // /proc/stat counts ticks over all cpus; scale its busy share to "% of one cpu" like the rest.
    const machine = a.machine && b.machine && b.machine.total > a.machine.total ? ((b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total)) * cpus * 100 : 0;
    return { seconds: wallMs / 1000, procs, bench: pct(bench), rest: Math.max(0, machine - pct(named + bench)), machine, cpus };
  }
}

/** `api 95%, worker 40%, bench 30%, rest 35% (machine 200% of 200%)` */
export function describeCpu(share: CpuShare): string {
  const parts = [...Object.entries(share.procs).map(([name, p]) => `${name} ${p.toFixed(0)}%`), `bench ${share.bench.toFixed(0)}%`, `rest of machine ${share.rest.toFixed(0)}%`];
  return `${parts.join(', ')} (machine busy ${share.machine.toFixed(0)}% of ${share.cpus * 100}%, over ${share.seconds.toFixed(1)} s)`;
}

/** Processes whose command name is `comm` (e.g. `postgres`, `redis-server`), read from /proc. */
function pidsNamed(comm: string): number[] {
  try {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          return readFileSync(`/proc/${d}/comm`, 'utf8').trim() === comm;
        } catch {
          return false;
        }
      })
      .map(Number);
  } catch {
    return [];
  }
}

/** CPU time per group of processes; a group is fixed pids or every process of a command name. */
export type CpuGroups = Record<string, { pids: number[] } | { comm: string }>;

/**
 * CPU time a piece of work cost each part of the machine (the API, the load generator, PostgreSQL,
 * Redis), in ms. Unlike shares of wall time, a cost does not depend on what else ran meanwhile, so
 * two routes' costs explain the ratio of their throughputs on a saturated machine.
 */
export class CpuCost {
  constructor(private readonly groups: CpuGroups) {}

  private read(): Map<string, Map<number, number>> {
    const out = new Map<string, Map<number, number>>();
    for (const [name, g] of Object.entries(this.groups)) {
      const pids = 'pids' in g ? g.pids : pidsNamed(g.comm);
      out.set(name, new Map(pids.map((pid) => [pid, processCpuMs(pid) ?? 0])));
    }
    const self = process.cpuUsage();
    out.set('bench', new Map([[process.pid, (self.user + self.system) / 1000]]));
    return out;
  }

  /** Starts a window; the function it answers ends it and answers each group's CPU ms within it. */
  window(): () => Record<string, number> {
    const start = this.read();
    return () => {
      const end = this.read();
      const used: Record<string, number> = {};
      for (const [name, pids] of end) {
        // A process that started within the window counts from zero; one that ended is lost (rare: pooled connections).
        used[name] = [...pids].reduce((sum, [pid, ms]) => sum + Math.max(0, ms - (start.get(name)?.get(pid) ?? 0)), 0);
      }
      return used;
    };
  }
}
