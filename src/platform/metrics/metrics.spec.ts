import { beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { register as defaultRegistry } from 'prom-client';
import { routeLabelOf } from './http-metrics.middleware.js';
import { Metrics, UNMATCHED_ROUTE } from './metrics.js';

/** The exposition lines of one metric family (samples only, no HELP/TYPE). */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

describe('Metrics', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('labels HTTP requests by method, route pattern and status', async () => {
    const metrics = new Metrics();
    metrics.httpRequest('GET', '/api/v1/characters/:id', 200, 0.02);
    metrics.httpRequest('GET', '/api/v1/characters/:id', 200, 0.03);
    metrics.httpRequest('POST', UNMATCHED_ROUTE, 404, 0.001);
    const text = await metrics.scrape();
    expect(samples(text, 'persona_http_request_duration_seconds_count').sort()).toEqual([
      'persona_http_request_duration_seconds_count{method="GET",route="/api/v1/characters/:id",status="200"} 2',
      'persona_http_request_duration_seconds_count{method="POST",route="unmatched",status="404"} 1',
    ]);
  });

  it('labels a request by the pattern it matched, never by its URL', () => {
    expect(routeLabelOf({ baseUrl: '', route: { path: '/api/v1/characters/:id' } })).toBe('/api/v1/characters/:id');
    expect(routeLabelOf({ baseUrl: '/api/v1/admin/queues', route: { path: '/api/queues' } })).toBe('/api/v1/admin/queues/api/queues');
    // No route matched (a 404, a static file): one label, whatever the path was.
    expect(routeLabelOf({ baseUrl: '' })).toBe(UNMATCHED_ROUTE);
    expect(routeLabelOf({ baseUrl: '/api/v1', route: { path: '*path' } })).toBe(UNMATCHED_ROUTE);
    expect(routeLabelOf({ baseUrl: '', route: { path: '/api/v1/media/*key' } })).toBe('/api/v1/media/*key');
    expect(routeLabelOf({ baseUrl: '/api/v1/admin/queues', route: { path: ['/a', '/b'] } })).toBe(UNMATCHED_ROUTE);
  });

  it('records job durations by type and outcome', async () => {
    const metrics = new Metrics();
    metrics.jobFinished('generate_image', 'completed', 2);
    metrics.jobFinished('generate_image', 'failed', 1);
    const text = await metrics.scrape();
    expect(samples(text, 'persona_job_duration_seconds_sum').sort()).toEqual([
      'persona_job_duration_seconds_sum{type="generate_image",outcome="completed"} 2',
      'persona_job_duration_seconds_sum{type="generate_image",outcome="failed"} 1',
    ]);
  });

  it('replaces the open-job gauge at each scrape, known types with no open job at 0', async () => {
    const metrics = new Metrics();
    let counts = [{ type: 'generate_image', status: 'pending' as const, count: 3 }, { type: 'train_lora', status: 'running' as const, count: 1 }];
    metrics.collectOnScrape(async () => metrics.setOpenJobs(counts, ['generate_image']));
    expect(samples(await metrics.scrape(), 'persona_queue_jobs').sort()).toEqual([
      'persona_queue_jobs{type="generate_image",status="pending"} 3',
      'persona_queue_jobs{type="generate_image",status="running"} 0',
      'persona_queue_jobs{type="train_lora",status="running"} 1',
    ]);
    counts = [];
    expect(samples(await metrics.scrape(), 'persona_queue_jobs').sort()).toEqual([
      'persona_queue_jobs{type="generate_image",status="pending"} 0',
      'persona_queue_jobs{type="generate_image",status="running"} 0',
    ]);
  });

  it('shows the owed failure hooks and the age of the oldest, both 0 once none is owed', async () => {
    const metrics = new Metrics();
    metrics.setOwedFailureHooks({ count: 2, oldestAgeSeconds: 90.5 });
    let text = await metrics.scrape();
    expect(samples(text, 'persona_owed_failure_hooks')).toEqual(['persona_owed_failure_hooks 2']);
    expect(samples(text, 'persona_owed_failure_hooks_oldest_age_seconds')).toEqual(['persona_owed_failure_hooks_oldest_age_seconds 90.5']);
    metrics.setOwedFailureHooks({ count: 0, oldestAgeSeconds: 12 });
    text = await metrics.scrape();
    expect(samples(text, 'persona_owed_failure_hooks')).toEqual(['persona_owed_failure_hooks 0']);
    expect(samples(text, 'persona_owed_failure_hooks_oldest_age_seconds')).toEqual(['persona_owed_failure_hooks_oldest_age_seconds 0']);
  });

  it('still answers the other metrics when a collector fails', async () => {
    const metrics = new Metrics();
    metrics.publishOutcome('instagram', 'published');
    metrics.collectOnScrape(async () => {
      throw new Error('database down');
    });
    expect(samples(await metrics.scrape(), 'persona_publish_outcomes_total')).toEqual(['persona_publish_outcomes_total{platform="instagram",outcome="published"} 1']);
  });

  it('counts routing decisions (reason empty when none) and fallbacks', async () => {
    const metrics = new Metrics();
    metrics.routingDecision('selfhosted', null);
    metrics.routingDecision('cloud', 'no_eligible_endpoint');
    metrics.routingFallback('timeout');
    metrics.routingFallback('timeout');
    const text = await metrics.scrape();
    expect(samples(text, 'persona_routing_decisions_total').sort()).toEqual([
      'persona_routing_decisions_total{route="cloud",reason="no_eligible_endpoint"} 1',
      'persona_routing_decisions_total{route="selfhosted",reason=""} 1',
    ]);
    expect(samples(text, 'persona_routing_fallbacks_total')).toEqual(['persona_routing_fallbacks_total{reason="timeout"} 2']);
  });

  it('shows one circuit state per endpoint at 1 and the others at 0, and the load', async () => {
    const metrics = new Metrics();
    metrics.circuitState('ep_1', 'open');
    metrics.circuitState('ep_1', 'half_open');
    metrics.selfhostedLoad('ep_1', 2);
    const text = await metrics.scrape();
    expect(samples(text, 'persona_selfhosted_circuit_state').sort()).toEqual([
      'persona_selfhosted_circuit_state{endpoint="ep_1",state="closed"} 0',
      'persona_selfhosted_circuit_state{endpoint="ep_1",state="half_open"} 1',
      'persona_selfhosted_circuit_state{endpoint="ep_1",state="open"} 0',
    ]);
    expect(samples(text, 'persona_selfhosted_load')).toEqual(['persona_selfhosted_load{endpoint="ep_1"} 2']);
  });

  it('keeps each instance in a registry of its own, with the process metrics, outside the global one', async () => {
    const a = new Metrics();
    const b = new Metrics();
    a.publishOutcome('x', 'failed');
    expect(samples(await b.scrape(), 'persona_publish_outcomes_total')).toEqual([]);
    expect(await a.scrape()).toContain('process_cpu_user_seconds_total');
    expect(defaultRegistry.getSingleMetric('persona_http_request_duration_seconds')).toBeUndefined();
    expect(a.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });
});
