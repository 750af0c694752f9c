import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { Metrics } from '../../../platform/metrics/index.js';

export type DeliveryOutcomeLabel = 'delivered' | 'retry' | 'failed' | 'gone';

/** Buckets for one attempt: a receiver answers in milliseconds, the timeout is 10 s. */
const ATTEMPT_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * `persona_webhook_deliveries_total{outcome}`: attempts by what came of them; and
 * `persona_webhook_attempt_duration_seconds`: how long each took. In the process's own registry
 * (served by the API; a worker keeps its own, as for jobs).
 */
@Injectable()
export class WebhookMetrics {
  private readonly outcomes: Counter<'outcome'>;
  private readonly latency: Histogram;

  constructor(metrics: Metrics) {
    this.outcomes = new Counter({
      name: 'persona_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome (delivered, retry, failed, gone).',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
    this.latency = new Histogram({
      name: 'persona_webhook_attempt_duration_seconds',
      help: 'Duration of webhook delivery attempts, connect to the answer read.',
      buckets: ATTEMPT_BUCKETS,
      registers: [metrics.registry],
    });
    for (const outcome of ['delivered', 'retry', 'failed', 'gone'] as const) this.outcomes.inc({ outcome }, 0);
  }

  attempt(outcome: DeliveryOutcomeLabel, durationMs: number): void {
    this.outcomes.inc({ outcome });
    this.latency.observe(durationMs / 1000);
  }
}
