import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { RedisConnections } from '../redis/redis.module.js';
import { outages, PROBE_TIMEOUT_MS, withinTime, type Dependency } from './outages.js';

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

/** The TCP port of a postgres:// URL; none for the embedded database's Unix socket. */
function tcpPortOf(url: string | undefined): number | undefined {
  try {
    const u = new URL(url ?? '');
    return u.hostname ? Number(u.port || 5432) : undefined;
  } catch {
    return undefined;
  }
}
