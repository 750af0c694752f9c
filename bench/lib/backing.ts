import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { onCleanup } from './cleanup.js';
import type { BenchSettings } from './settings.js';

/** A private store for one scenario: a new database on the real PostgreSQL, a Redis prefix, a data dir. */
export interface Backing {
  name: string;
  /** Environment for every process of the scenario. */
  env: Record<string, string>;
  /** Drops the database, deletes the prefix's Redis keys and the data dir. Also runs on abort. */
  release(): Promise<void>;
}

export const BENCH_ADMIN = { email: 'admin@bench.test', password: 'quiet-harbour-lamp-4821' };

export async function createBacking(settings: BenchSettings, label: string): Promise<Backing> {
  const name = `bench_${label}_${Date.now()}_${process.pid}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-`));
  const removeDir = onCleanup(`data dir ${dataDir}`, () => rmSync(dataDir, { recursive: true, force: true }));

  await withAdminClient(settings, (c) => c.query(`CREATE DATABASE ${name}`));
  const dropDb = onCleanup(`database ${name}`, async () => {
    await withAdminClient(settings, async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
  });
  const dropKeys = onCleanup(`redis keys *${name}*`, () => deleteRedisKeys(settings.redisUrl, name));

  const dbUrl = new URL(settings.pgAdminUrl);
  dbUrl.pathname = `/${name}`;
  const secret = `${name}-0123456789abcdef0123456789abcdef`;
  return {
    name,
    env: {
      DATA_DIR: dataDir,
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: settings.redisUrl,
      REDIS_PREFIX: name,
      JWT_SECRET: `jwt-${secret}`,
      TOKEN_ENCRYPTION_KEY: `enc-${secret}`,
      ADMIN_EMAIL: BENCH_ADMIN.email,
      ADMIN_PASSWORD: BENCH_ADMIN.password,
    },
    async release() {
      await dropKeys();
      await dropDb();
      await removeDir();
    },
  };
}

async function withAdminClient<T>(settings: BenchSettings, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: settings.pgAdminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function deleteRedisKeys(url: string, name: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${name}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
