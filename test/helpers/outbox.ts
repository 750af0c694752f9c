import { join } from 'node:path';
import pg from 'pg';
import type { Backing } from './server.js';

/** An outbox event as recorded: what the webhooks fan out (docs/events.md). */
export interface RecordedEvent {
  type: string;
  workspace_id: string | null;
  payload: Record<string, unknown>;
}

/** The backing database's address, on PostgreSQL or on the embedded database's socket (while a server runs). */
function dbUrl(backing: Backing): string {
  return backing.env.DATABASE_URL ?? `postgres://postgres@localhost:5432/postgres?host=${encodeURIComponent(join(backing.env.DATA_DIR, 'run'))}&sslmode=disable`;
}

/** The outbox events whose payload has `key` = `value`, oldest first. */
export async function recordedEvents(backing: Backing, key: string, value: string): Promise<RecordedEvent[]> {
  const client = new pg.Client({ connectionString: dbUrl(backing) });
  await client.connect();
  try {
    const res = await client.query(`SELECT type, workspace_id, payload FROM outbox_events WHERE payload->>$1 = $2 ORDER BY occurred_at, id`, [key, value]);
    return res.rows as RecordedEvent[];
  } finally {
    await client.end();
  }
}
