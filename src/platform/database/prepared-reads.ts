import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../config/index.js';
import { fromDependency } from '../health/outages.js';

interface PgPool {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Hot reads (every authenticated request, list pages). They go straight to the driver's pool as named
 * prepared statements, so PostgreSQL plans them once per connection instead of on every request
 * (planning the join costs several times its execution). PGlite serves every connection from one
 * backend session, where per-connection statement names would collide, so there they run unnamed.
 */
@Injectable()
export class PreparedReads {
  private readonly named: boolean;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    config: AppConfig,
  ) {
    this.named = config.databaseUrl !== undefined;
  }

  async rows<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const pool = (this.ds.driver as unknown as { master: PgPool }).master;
    try {
      const res = await pool.query(this.named ? { name, text, values } : { text, values });
      return res.rows as T[];
    } catch (err) {
      // Whatever fails here failed at the database: a reset connection says so with no port.
      throw fromDependency(err, 'database');
    }
  }
}
