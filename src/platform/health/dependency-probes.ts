import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { RedisConnections } from '../redis/redis.module.js';
import { fromDependency, outages, PROBE_TIMEOUT_MS, withinTime, type Dependency } from './outages.js';

/**
 * Asks each dependency whether it answers, each within PROBE_TIMEOUT_MS, side by side: readiness
 * answers within a second even when a dependency hangs instead of refusing. Registers the database's
 * probe with the outage log (the Redis connections register theirs).
 */
@Injectable()
export class DependencyProbes {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisConnections,
  ) {
    outages.register('database', () => this.db.query('SELECT 1'), tcpPortOf((db.options as { url?: string }).url));
    markSocketErrors(db);
  }

  async check(): Promise<Partial<Record<Dependency, 'up' | 'down'>>> {
    const probes: Array<[Dependency, () => Promise<unknown>]> = [['database', () => this.db.query('SELECT 1')]];
    const redis = this.redis.client;
    if (redis) probes.push(['redis', () => redis.ping()]);
    const results = await Promise.all(
      probes.map(async ([dep, probe]) => [dep, await withinTime(probe(), PROBE_TIMEOUT_MS).then(() => 'up' as const, () => 'down' as const)] as const),
    );
    return Object.fromEntries(results);
  }
}

interface PgPool {
  on(event: 'connect', listener: (client: { connection?: { stream?: NodeJS.EventEmitter } }) => void): void;
}

/**
 * A pooled connection reset under a query fails it with a bare `read ECONNRESET` (no port): marks
 * every error of the pool's sockets as the database's, so the outage log knows it. The mark is set
 * while the socket emits, before any awaiting caller resumes.
 */
function markSocketErrors(db: DataSource): void {
  const pool = (db.driver as unknown as { master?: PgPool }).master;
  pool?.on('connect', (client) => client.connection?.stream?.on('error', (err) => fromDependency(err, 'database')));
}

/** The TCP port of a postgres:// URL; none for the embedded database's Unix socket. */
function tcpPortOf(url: string | undefined): number | undefined {
  try {
    const u = new URL(url ?? '');
    return u.hostname ? Number(u.port || 5432) : undefined;
  } catch {
    return undefined;
  }
}
