import { Injectable, Logger } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type JobOutcome = 'completed' | 'failed';
export type OpenJobStatus = 'pending' | 'running';
export type RoutingRoute = 'selfhosted' | 'cloud';
export type CircuitState = 'closed' | 'open' | 'half_open';

/** Open jobs by type and status, as the job rows count them. */
export interface OpenJobCount {
  type: string;
  status: OpenJobStatus;
  count: number;
}

/** The failure hooks (refunds) still owed, as the job rows record them. */
export interface OwedFailureHooks {
  count: number;
  /** Seconds since the oldest of them was recorded (its job failed); 0 when none is owed. */
  oldestAgeSeconds: number;
}

/** The label of a request that matched no route: never its URL, which would make a series per path. */
export const UNMATCHED_ROUTE = 'unmatched';

const CIRCUIT_STATES: readonly CircuitState[] = ['closed', 'open', 'half_open'];
const OPEN_STATUSES: readonly OpenJobStatus[] = ['pending', 'running'];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Jobs run from under a second (embeddings) to many minutes (LoRA training, video). */
const JOB_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/**
 * The process's Prometheus metrics, in a registry of its own rather than prom-client's global one,
 * so that two applications in one process (tests) never share or collide on a series.
 *
 * Only the API serves them (`GET /api/v1/metrics`). A worker process records its own job durations
 * and publish outcomes too, but serves no HTTP, so those stay in the worker: the queue gauge, read
 * from the job rows at scrape time, is the view of the whole fleet; per-process histograms are seen
 * for the API (and for workers only once they get a metrics port of their own).
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  private readonly logger = new Logger('Metrics');
  private readonly collectors: Array<() => Promise<void>> = [];

  private readonly httpDuration = new Histogram({
    name: 'persona_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly queueJobs = new Gauge({
    name: 'persona_queue_jobs',
    help: 'Open jobs by type and status, counted from the job rows at scrape time (all processes).',
    labelNames: ['type', 'status'] as const,
    registers: [this.registry],
  });
  private readonly owedHooks = new Gauge({
    name: 'persona_owed_failure_hooks',
    help: 'Failed jobs whose failure hook (their refund) has not committed yet, counted from the job rows at scrape time (all processes).',
    registers: [this.registry],
  });
  private readonly owedHookAge = new Gauge({
    name: 'persona_owed_failure_hooks_oldest_age_seconds',
    help: 'Seconds since the oldest owed failure hook was recorded (its job failed), read at scrape time; 0 when none is owed.',
    registers: [this.registry],
  });
  private readonly jobDuration = new Histogram({
    name: 'persona_job_duration_seconds',
    help: 'Duration of the job runs this process finished, by type and outcome.',
    labelNames: ['type', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });
  private readonly billingDrift = new Counter({
    name: 'persona_billing_reconciliation_drift_total',
    help: 'Workspaces whose billing state the reconciliation found behind the payment provider, and mended.',
    registers: [this.registry],
  });
  private readonly publishOutcomes = new Counter({
    name: 'persona_publish_outcomes_total',
    help: 'Publish attempts this process finished, by platform and outcome.',
    labelNames: ['platform', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly routingDecisions = new Counter({
    name: 'persona_routing_decisions_total',
    help: 'Image generation routing decisions by route and reason.',
    labelNames: ['route', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly routingFallbacks = new Counter({
    name: 'persona_routing_fallbacks_total',
    help: 'Self-hosted attempts that fell back to the cloud, by reason.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly circuit = new Gauge({
    name: 'persona_selfhosted_circuit_state',
    help: 'Circuit state per self-hosted endpoint: 1 for the current state, 0 for the others.',
    labelNames: ['endpoint', 'state'] as const,
    registers: [this.registry],
  });
  private readonly load = new Gauge({
    name: 'persona_selfhosted_load',
    help: 'Requests in flight per self-hosted endpoint.',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** `route` is a route pattern (or UNMATCHED_ROUTE), never a URL as sent. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  jobFinished(type: string, outcome: JobOutcome, seconds: number): void {
    this.jobDuration.observe({ type, outcome }, seconds);
  }

  /** Replaces the open-job counts; every `knownTypes` × status series is written, 0 when absent. */
  setOpenJobs(counts: readonly OpenJobCount[], knownTypes: readonly string[] = []): void {
    this.queueJobs.reset();
    for (const type of knownTypes) for (const status of OPEN_STATUSES) this.queueJobs.set({ type, status }, 0);
    for (const { type, status, count } of counts) this.queueJobs.set({ type, status }, count);
  }

  /** Replaces the owed failure-hook gauges: how many, and how long the oldest has been owed. */
  setOwedFailureHooks({ count, oldestAgeSeconds }: OwedFailureHooks): void {
    this.owedHooks.set(count);
    this.owedHookAge.set(count > 0 ? oldestAgeSeconds : 0);
  }

  billingDriftMended(): void {
    this.billingDrift.inc();
  }

  publishOutcome(platform: string, outcome: string): void {
    this.publishOutcomes.inc({ platform, outcome });
  }

  routingDecision(route: RoutingRoute, reason: string | null): void {
    this.routingDecisions.inc({ route, reason: reason ?? '' });
  }

  routingFallback(reason: string): void {
    this.routingFallbacks.inc({ reason });
  }

  circuitState(endpointId: string, state: CircuitState): void {
    for (const s of CIRCUIT_STATES) this.circuit.set({ endpoint: endpointId, state: s }, s === state ? 1 : 0);
  }

  selfhostedLoad(endpointId: string, load: number): void {
    this.load.set({ endpoint: endpointId }, load);
  }

  /** Runs `fn` before every scrape, so a context can refresh gauges it reads from elsewhere. */
  collectOnScrape(fn: () => Promise<void>): void {
    this.collectors.push(fn);
  }

  /**
   * The text exposition. A collector that fails leaves its gauges as they were and is logged: one
   * unreachable source must not blank every other metric.
   */
  async scrape(): Promise<string> {
    await Promise.all(
      this.collectors.map((fn) => fn().catch((err: unknown) => this.logger.warn({ msg: 'metrics collector failed', err: String(err) }))),
    );
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
