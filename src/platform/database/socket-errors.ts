import type { DataSource } from 'typeorm';
import { fromDependency } from '../health/outages.js';

type PooledClient = { connection?: { stream?: NodeJS.EventEmitter } };

interface PgPool {
  on(event: 'connect', listener: (client: PooledClient) => void): void;
  _clients?: PooledClient[];
}

/**
 * A pooled connection reset under a query fails it with a bare `read ECONNRESET` (no port): marks
 * every error of the pool's sockets as the database's, so the outage log knows it. The mark is set
 * while the socket emits, before any awaiting caller resumes. Clients the pool opened before this
 * ran (the data source's own start-up queries) are marked too: they serve requests like the rest.
 */
export function markSocketErrors(db: DataSource): void {
  const pool = (db.driver as unknown as { master?: PgPool }).master;
  if (!pool) return;
  const marked = new WeakSet<NodeJS.EventEmitter>();
  const mark = (client: PooledClient): void => {
    const stream = client.connection?.stream;
    if (!stream || marked.has(stream)) return;
    marked.add(stream);
    stream.on('error', (err) => fromDependency(err, 'database'));
  };
  pool.on('connect', mark);
  for (const client of pool._clients ?? []) mark(client);
}
