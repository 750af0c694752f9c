import autocannon from 'autocannon';

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
  statusCodes: Record<string, number>;
  /** Peak RSS of the server while this route was measured, in MiB, when the scenario samples it. */
  rssPeakMb?: number;
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

/** Whether a measurement is clean enough to judge: no transport errors and (almost) only 2xx answers. */
export function isClean(m: Measurement): boolean {
  return m.errors === 0 && m.non2xx <= m.requests * 0.001;
}
