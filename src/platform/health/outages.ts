import { Logger } from '@nestjs/common';

/** A backing service the process cannot work without. */
export type Dependency = 'database' | 'redis';

/** Seconds a client is told to wait (`Retry-After`) while a dependency is away. */
export const OUTAGE_RETRY_AFTER_S = 5;

/** How long one probe may take before the dependency counts as down (readiness answers within 1 s). */
export const PROBE_TIMEOUT_MS = 800;

/** How often a dependency found down is probed until it answers again. */
const RECHECK_MS = 500;

/** SQLSTATE classes and codes meaning "no usable connection": 08 connection exception, 57P01-03 shutdown / starting up. */
const PG_OUTAGE_STATE = /^(08|57P0[1-3]$|53300$)/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH']);
/** What pg, TypeORM's pool and ioredis say when their connection is gone or refused (none carries a code). */
const OUTAGE_MESSAGES = [
  /^Connection terminated/,
  /Client has encountered a connection error/,
  /timeout exceeded when trying to connect/,
  /enableOfflineQueue options is false/,
  /^Connection is closed\.?$/,
  /^Reached the max retries per request limit/,
  /^Command timed out$/,
];

interface OutageCandidate {
  code?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
  name?: unknown;
  port?: unknown;
  dependency?: unknown;
}

/**
 * Marks an error thrown by a dependency's own client (a pooled connection reset mid-query says
 * `read ECONNRESET` with no port), so `isOutageError` counts its network code as that dependency's.
 */
export function fromDependency(err: unknown, dependency: Dependency): unknown {
  if (err && typeof err === 'object' && !('dependency' in err)) Object.defineProperty(err, 'dependency', { value: dependency });
  return err;
}

/**
 * Whether `err` (or what it wraps: TypeORM's `driverError`, a `cause`) says a backing service is
 * unreachable, rather than that a statement or command was wrong. A bare network error (refused,
 * reset) counts only when it names one of `ports`, the dependencies' own: a provider that refuses
 * a connection is that provider's failure, not an outage here.
 */
export function isOutageError(err: unknown, ports: ReadonlySet<number> = outages.ports): boolean {
  let e = err as OutageCandidate | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 4; depth += 1) {
    if (e.name === 'MaxRetriesPerRequestError') return true;
    if (typeof e.code === 'string' && PG_OUTAGE_STATE.test(e.code)) return true;
    const ours = e.dependency !== undefined || (typeof e.port === 'number' && ports.has(e.port));
    if (typeof e.code === 'string' && NETWORK_CODES.has(e.code) && ours) return true;
    if (typeof e.message === 'string' && OUTAGE_MESSAGES.some((re) => re.test(e!.message as string))) return true;
    e = (e.driverError ?? e.cause) as typeof e;
  }
  return false;
}

/**
 * Whether `err` may be an outage: it looks like one, or it is a network error that names nobody (a
 * bare `read ECONNRESET` from a socket nothing marked), which could be a dependency's or a provider's,
 * or a query on a transaction whose connection was already given back.
 * Work that would fail for good on it asks `outages.confirm` first: the probes tell which it was.
 */
export function mayBeOutage(err: unknown): boolean {
  if (isOutageError(err)) return true;
  const e = err as OutageCandidate | undefined;
  // TypeORM's answer to a query on a transaction whose connection broke and was given back: the
  // database going away mid-transaction, or a bug that used a finished transaction.
  if (e?.name === 'QueryRunnerProviderAlreadyReleasedError') return true;
  return !!e && typeof e.code === 'string' && NETWORK_CODES.has(e.code) && e.port === undefined && (e as { address?: unknown }).address === undefined;
}

/** Answers within `ms`: a probe that hangs (a full pool, a half-open socket) counts as down. */
export function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

type Probe = () => Promise<unknown>;

/**
 * One warning per outage, per dependency, per process. Whoever meets an outage error reports it;
 * the first report probes every registered dependency, logs `dependency unavailable` for each one
 * found down, and probes those again until they answer (`dependency available again`, with how long
 * they were away). Reports during an outage log nothing: a request loop against a stopped database
 * wrote hundreds of `unhandled error` lines in ten seconds.
 */
export class DependencyOutages {
  private readonly logger = new Logger('Outage');
  private readonly probes = new Map<Dependency, Probe>();
  private readonly down = new Map<Dependency, number>();
  private readonly restoredListeners: Array<(dependency: Dependency) => void> = [];
  private checking?: Promise<void>;

  /** The TCP ports of the dependencies, for telling their network errors from a provider's. */
  readonly ports = new Set<number>();

  register(dependency: Dependency, probe: Probe, port?: number): void {
    this.probes.set(dependency, probe);
    if (port !== undefined) this.ports.add(port);
  }

  /**
   * Whether a dependency is down now: probes those not already known down (and starts their outage
   * when one fails). For work that would do something different during an outage than on a failure.
   */
  async confirm(err: unknown): Promise<boolean> {
    if (this.down.size > 0) return true;
    this.report(err);
    await this.checking;
    return this.down.size > 0;
  }

  /**
   * Whether a dependency being away explains `err`: it looks like an outage (or names nobody) and a
   * dependency is down now. For work that fails for good otherwise (a job, its item).
   */
  async explains(err: unknown): Promise<boolean> {
    return mayBeOutage(err) && this.confirm(err);
  }

  /**
   * Whether an outage accounts for a failure, so a warning of its own would only repeat the outage
   * log's one: an error that looks like an outage is reported; any other is checked with the probes
   * (a client closed as the database went away, a transaction whose connection was given back, name
   * no outage). Work that warns of its failures asks this first: a stopped database is one line per
   * process, not one per loop, pass, job or item.
   */
  async covers(err: unknown): Promise<boolean> {
    if (!isOutageError(err)) return this.confirm(err);
    this.report(err);
    return true;
  }

  /**
   * For work that warns once per failing streak: whether this failure warns. The streak's first
   * failure asks `covers`; later ones only report what looks like an outage, so a loop that keeps
   * failing for another reason does not probe the dependencies on every pass.
   */
  async warnsFor(err: unknown, firstOfStreak: boolean): Promise<boolean> {
    if (firstOfStreak) return !(await this.covers(err));
    if (isOutageError(err)) this.report(err);
    return false;
  }

  /** Calls `listener` each time an outage ends (work that waited for it may go again). */
  onRestored(listener: (dependency: Dependency) => void): void {
    this.restoredListeners.push(listener);
  }

  /** Whether `dependency` is currently known to be down. */
  isDown(dependency: Dependency): boolean {
    return this.down.has(dependency);
  }

  /** An outage error met somewhere; logs only when it reveals a new outage. */
  report(err: unknown, dependency?: Dependency): void {
    if (dependency && !this.probes.has(dependency)) {
      this.markDown(dependency, err);
      return;
    }
    if (dependency && this.down.has(dependency)) return;
    this.checking ??= this.check(err).finally(() => {
      this.checking = undefined;
    });
  }

  /** A dependency seen working again (a Redis `ready`): closes its outage without waiting for a probe. */
  restored(dependency: Dependency): void {
    const since = this.down.get(dependency);
    if (since === undefined) return;
    this.down.delete(dependency);
    this.logger.log({ msg: 'dependency available again', dependency, down_ms: Date.now() - since });
    for (const listener of this.restoredListeners) listener(dependency);
  }

  private async check(err: unknown): Promise<void> {
    const results = await Promise.all(
      [...this.probes].filter(([dep]) => !this.down.has(dep)).map(async ([dep, probe]) => [dep, await this.answers(probe)] as const),
    );
    for (const [dep, up] of results) if (!up) this.markDown(dep, err);
  }

  private markDown(dependency: Dependency, err: unknown): void {
    if (this.down.has(dependency)) return;
    this.down.set(dependency, Date.now());
    this.logger.warn({ msg: 'dependency unavailable', dependency, err: err instanceof Error ? err.message : String(err) });
    const probe = this.probes.get(dependency);
    if (probe) void this.watch(dependency, probe);
  }

  private async watch(dependency: Dependency, probe: Probe): Promise<void> {
    while (this.down.has(dependency)) {
      await new Promise((r) => setTimeout(r, RECHECK_MS).unref());
      if (await this.answers(probe)) this.restored(dependency);
    }
  }

  private answers(probe: Probe): Promise<boolean> {
    return withinTime(probe(), PROBE_TIMEOUT_MS).then(() => true, () => false);
  }
}

/** This process's outages: the exception filter, the Redis connections and the queue report to it. */
export const outages = new DependencyOutages();
