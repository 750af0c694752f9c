import pg from 'pg';

/**
 * Samples what the server's PostgreSQL sessions on one database are doing (pg_stat_activity),
 * from outside, on its own connection: how many are running, idle in a transaction, or waiting,
 * and on what (e.g. `Lock:transactionid` = waiting for another transaction's row lock,
 * `IO:WALSync` = waiting for a commit's flush). The sampler's own session is left out.
 */
export class PgActivitySampler {
  private readonly counts = new Map<string, number>();
  private samples = 0;
  private timer?: NodeJS.Timeout;
  private busy = false;

  private constructor(
    private readonly client: pg.Client,
    private readonly database: string,
  ) {}

  static async open(pgAdminUrl: string, database: string): Promise<PgActivitySampler> {
    const client = new pg.Client({ connectionString: pgAdminUrl });
    await client.connect();
    return new PgActivitySampler(client, database);
  }

  /** Starts sampling every `intervalMs`; the function it answers stops it and answers the summary. */
  start(intervalMs = 100): () => string {
    this.counts.clear();
    this.samples = 0;
    this.timer = setInterval(() => void this.sample(), intervalMs);
    return () => {
      clearInterval(this.timer);
      return this.describe();
    };
  }

  private async sample(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const res = await this.client.query<{ what: string; n: string }>(
        `SELECT CASE
                  WHEN wait_event_type = 'Lock' THEN state || ' / Lock:' || wait_event || ' in "' || left(regexp_replace(query, '\\s+', ' ', 'g'), 40) || '…"'
                  WHEN wait_event IS NOT NULL AND state <> 'idle' THEN state || ' / ' || wait_event_type || ':' || wait_event
                  ELSE state END AS what,
                count(*) AS n
           FROM pg_stat_activity
          WHERE datname = $1 AND pid <> pg_backend_pid() AND state IS NOT NULL
          GROUP BY 1`,
        [this.database],
      );
      this.samples++;
      for (const row of res.rows) this.counts.set(row.what, (this.counts.get(row.what) ?? 0) + Number(row.n));
    } catch {
      // A missed sample only thins the picture.
    } finally {
      this.busy = false;
    }
  }

  /** `active / Lock:transactionid … 5.1, idle 1.0, active 0.4` sessions on average, the most common first (at most six, each ≥ 0.1). */
  describe(): string {
    if (this.samples === 0) return 'no samples';
    const rows = [...this.counts.entries()]
      .map(([what, n]) => [what, n / this.samples] as const)
      .filter(([, avg]) => avg >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([what, avg]) => `${what} ${avg.toFixed(1)}`);
    return `${rows.join(', ')} (average sessions over ${this.samples} samples)`;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.client.end().catch(() => undefined);
  }
}
