import autocannon from 'autocannon';
import type { CpuCost } from './cpu.js';

export interface LoadSpec {
  /** How the route shows in the table, e.g. `GET /auth/me`. */
  label: string;
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /** Varies each request (e.g. spreads writes over tenants); called once per request sent. */
  setupRequest?: (req: autocannon.Request) => autocannon.Request;
  /**
   * A finite budget of requests, warm-up included, for writes that use up something (a plan's
   * character limit). The measurement ends at the budget or at the duration, whichever comes first.
   */
  maxRequests?: number;
}

export interface LoadOptions {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface Measurement {
  label: string;
  connections: number;
  durationSeconds: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** What the errors were, when the load generator knows (the open loop does). */
  errorKinds?: Record<string, number>;
  statusCodes: Record<string, number>;
  /** Peak RSS of the server while this route was measured, in MiB, when the scenario samples it. */
  rssPeakMb?: number;
  /** Requests/s of each round, when measured in turns with other routes. */
  rounds?: number[];
  /** CPU ms each part of the machine spent on the measured requests, when a `CpuCost` was given. */
  cpuMs?: Record<string, number>;
}

function runOnce(spec: LoadSpec, opts: LoadOptions, seconds: number, amount?: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: spec.method ?? 'GET',
        headers: spec.headers,
        body: spec.body,
        requests: spec.setupRequest ? [{ setupRequest: spec.setupRequest }] : undefined,
        connections: amount === undefined ? opts.connections : Math.min(opts.connections, amount),
        duration: seconds,
        amount,
        timeout: 10,
      },
      (err, result) => {
        clearTimeout(timer);
        if (err) reject(err instanceof Error ? err : new Error(String(err)));
        else resolve(result);
      },
    );
    // With `amount`, autocannon ignores `duration`; stop it ourselves when the time is up.
    const timer = amount === undefined ? undefined : setTimeout(() => instance.stop(), seconds * 1000);
  });
}

function toMeasurement(spec: LoadSpec, opts: LoadOptions, r: autocannon.Result): Measurement {
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  const requests = r.requests.total;
  return {
    label: spec.label,
    connections: opts.connections,
    durationSeconds: r.duration,
    requests,
    rps: r.duration > 0 ? requests / r.duration : 0,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    statusCodes,
  };
}

/** Warms the route up, unmeasured, then measures it with `connections` concurrent keep-alive connections. */
export async function measure(spec: LoadSpec, opts: LoadOptions): Promise<Measurement> {
  let budget = spec.maxRequests;
  if (budget !== undefined && budget < opts.connections * 2) {
    throw new Error(`${spec.label}: a budget of ${budget} requests is too small for ${opts.connections} connections`);
  }
  if (opts.warmupSeconds > 0) {
    const share = budget === undefined ? undefined : Math.max(opts.connections, Math.floor((budget * opts.warmupSeconds) / (opts.warmupSeconds + opts.durationSeconds)));
    const warm = await runOnce(spec, opts, opts.warmupSeconds, share);
    if (budget !== undefined) budget -= warm.requests.sent;
  }
  if (budget !== undefined && budget < opts.connections) {
    throw new Error(`${spec.label}: the warm-up used up the request budget`);
  }
  const result = await runOnce(spec, opts, opts.durationSeconds, budget);
  return toMeasurement(spec, opts, result);
}

/**
 * Warms each route up once, then measures them taking turns for `rounds` rounds of an equal share of
 * the duration. Per route: requests/s over all its rounds, the median round's p50, and the worst
 * round's p99 (percentiles of separate runs cannot be merged; the worst is the one a target must meet).
 * A route with a request budget spends it across its turns (see `Budget`).
 */
export async function measureInTurns(specs: LoadSpec[], opts: LoadOptions, rounds: number, cost?: CpuCost): Promise<Measurement[]> {
  const budgets = specs.map((s) => new Budget(s, opts, opts.warmupSeconds + opts.durationSeconds));
  if (opts.warmupSeconds > 0) {
    for (const [i, spec] of specs.entries()) budgets[i].spend(await runOnce(spec, opts, opts.warmupSeconds, budgets[i].share(opts.warmupSeconds)), opts.warmupSeconds);
  }
  const slices = specs.map(() => [] as Measurement[]);
  const seconds = opts.durationSeconds / rounds;
  for (let round = 0; round < rounds; round++) {
    for (const [i, spec] of specs.entries()) {
      const end = cost?.window();
      const result = await runOnce(spec, opts, seconds, budgets[i].share(seconds));
      budgets[i].spend(result, seconds);
      slices[i].push({ ...toMeasurement(spec, opts, result), cpuMs: end?.() });
    }
  }
  return slices.map((parts) => combine(parts));
}

/**
 * A route's request budget (`maxRequests`) spread over its turns in proportion to their time, so a
 * write that uses something up can take turns with reads: each turn may send its share of what is
 * left, and ends at its time or its share, whichever comes first.
 */
class Budget {
  private left: number | undefined;

  constructor(
    private readonly spec: LoadSpec,
    private readonly opts: LoadOptions,
    private secondsLeft: number,
  ) {
    this.left = spec.maxRequests;
    if (this.left !== undefined && this.left < opts.connections * 2) {
      throw new Error(`${spec.label}: a budget of ${this.left} requests is too small for ${opts.connections} connections`);
    }
  }

  /** The most this turn may send; undefined when the route has no budget. */
  share(seconds: number): number | undefined {
    if (this.left === undefined) return undefined;
    if (this.left < this.opts.connections) throw new Error(`${this.spec.label}: the request budget is used up`);
    return Math.max(this.opts.connections, Math.floor((this.left * seconds) / this.secondsLeft));
  }

  spend(result: autocannon.Result, seconds: number): void {
    this.secondsLeft -= seconds;
    if (this.left !== undefined) this.left -= result.requests.sent;
  }
}

function combine(parts: Measurement[]): Measurement {
  const sum = (pick: (m: Measurement) => number) => parts.reduce((n, m) => n + pick(m), 0);
  const p50s = parts.map((m) => m.p50).sort((a, b) => a - b);
  const statusCodes: Record<string, number> = {};
  for (const m of parts) for (const [code, n] of Object.entries(m.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const durationSeconds = sum((m) => m.durationSeconds);
  const requests = sum((m) => m.requests);
  return {
    ...parts[0],
    durationSeconds,
    requests,
    rps: durationSeconds > 0 ? requests / durationSeconds : 0,
    p50: p50s[Math.floor(p50s.length / 2)],
    p99: Math.max(...parts.map((m) => m.p99)),
    non2xx: sum((m) => m.non2xx),
    errors: sum((m) => m.errors),
    statusCodes,
    rounds: parts.map((m) => m.rps),
    cpuMs: parts[0].cpuMs && sumRecords(parts.map((m) => m.cpuMs ?? {})),
  };
}

function sumRecords(records: Array<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) for (const [k, v] of Object.entries(r)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Whether a measurement is clean enough to judge: no transport errors and (almost) only 2xx answers. */
export function isClean(m: Measurement): boolean {
  return m.errors === 0 && m.non2xx <= m.requests * 0.001;
}
