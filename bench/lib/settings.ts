/** Benchmark knobs, read once from the environment (the bench is a tool, not the app: it may read process.env). */
function num(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

export interface BenchSettings {
  /** A superuser URL on the local PostgreSQL; each run creates and drops its own database there. */
  pgAdminUrl: string;
  redisUrl: string;
  connections: number;
  /** Seconds each route is measured. */
  durationSeconds: number;
  /** Seconds each route is hit, unmeasured, before its measurement. */
  warmupSeconds: number;
  /**
   * Rounds the routes compared with a baseline are measured in, taking turns (health, a, b, health,
   * a, b, ...), each round a share of the duration: a machine that slows down for a while slows
   * every route alike instead of whichever was being measured.
   */
  rounds: number;
  /** Hard limit for the whole run; past it the bench stops its servers, cleans up and fails. */
  timeoutSeconds: number;
}

export function loadSettings(): BenchSettings {
  return {
    pgAdminUrl: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    connections: Math.round(num('BENCH_CONNECTIONS', 50)),
    durationSeconds: num('BENCH_DURATION', 10),
    warmupSeconds: num('BENCH_WARMUP', 2),
    rounds: Math.round(num('BENCH_ROUNDS', 3)),
    timeoutSeconds: num('BENCH_TIMEOUT', 300),
  };
}
