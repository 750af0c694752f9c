import { join } from 'node:path';
import pg from 'pg';
import type { Backing } from './server.js';

/** The backing database's address: PostgreSQL, or the embedded one through its socket (while a server runs). */
export function databaseUrl(backing: Backing): string {
  return backing.env.DATABASE_URL ?? `postgres://postgres@localhost:5432/postgres?host=${encodeURIComponent(join(backing.env.DATA_DIR, 'run'))}&sslmode=disable`;
}

/** A connected client of the backing database; the caller ends it. */
export async function databaseClient(backing: Backing): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl(backing) });
  await client.connect();
  return client;
}

/** Runs one statement on the backing database, on a connection of its own. */
export async function sql<T = Record<string, unknown>>(backing: Backing, text: string, params: unknown[] = []): Promise<T[]> {
  const client = await databaseClient(backing);
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}
