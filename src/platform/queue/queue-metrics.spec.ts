import { beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { Metrics, type OpenJobCount, type OwedFailureHooks } from '../metrics/metrics.js';
import { OpenJobCounts, OwedFailureHookCounts } from './job-store.js';
import { QueueMetrics } from './queue-metrics.js';

/** The exposition lines of one metric family (samples only, no HELP/TYPE). */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

/** A DataSource whose `query` answers `rows` and records every statement it was sent. */
function fakeDataSource(rows: unknown[]) {
  const sent: string[] = [];
  const ds = { query: async (sql: string) => (sent.push(sql), rows) } as unknown as DataSource;
  return { ds, sent };
}

describe('QueueMetrics', () => {
  beforeAll(() => Logger.overrideLogger(false));

  function setup(owed: () => Promise<OwedFailureHooks>) {
    const metrics = new Metrics();
    const reads = { open: 0, owed: 0 };
    const open = { count: async (): Promise<OpenJobCount[]> => (reads.open++, [{ type: 'generate_image', status: 'pending', count: 4 }]) } as OpenJobCounts;
    const owedCounts = { count: async () => (reads.owed++, owed()) } as OwedFailureHookCounts;
    new QueueMetrics(metrics, open, owedCounts, ['generate_image']).onModuleInit();
    return { metrics, reads };
  }

  it('reads the owed failure hooks once per scrape and never between scrapes', async () => {
    let owed: OwedFailureHooks = { count: 3, oldestAgeSeconds: 125 };
    const { metrics, reads } = setup(async () => owed);
    expect(reads).toEqual({ open: 0, owed: 0 });
    let text = await metrics.scrape();
    expect(reads).toEqual({ open: 1, owed: 1 });
    expect(samples(text, 'persona_owed_failure_hooks')).toEqual(['persona_owed_failure_hooks 3']);
    expect(samples(text, 'persona_owed_failure_hooks_oldest_age_seconds')).toEqual(['persona_owed_failure_hooks_oldest_age_seconds 125']);
    owed = { count: 0, oldestAgeSeconds: 0 };
    text = await metrics.scrape();
    expect(reads).toEqual({ open: 2, owed: 2 });
    expect(samples(text, 'persona_owed_failure_hooks')).toEqual(['persona_owed_failure_hooks 0']);
  });

  it('keeps the queue gauge current when the owed-hook read fails, and the owed gauges as they were', async () => {
    let fail = false;
    const { metrics } = setup(async () => {
      if (fail) throw new Error('database down');
      return { count: 1, oldestAgeSeconds: 7 };
    });
    await metrics.scrape();
    fail = true;
    const text = await metrics.scrape();
    expect(samples(text, 'persona_queue_jobs{type="generate_image",status="pending"}')).toEqual(['persona_queue_jobs{type="generate_image",status="pending"} 4']);
    expect(samples(text, 'persona_owed_failure_hooks')).toEqual(['persona_owed_failure_hooks 1']);
    expect(samples(text, 'persona_owed_failure_hooks_oldest_age_seconds')).toEqual(['persona_owed_failure_hooks_oldest_age_seconds 7']);
  });
});

describe('OwedFailureHookCounts', () => {
  it('sends one aggregate restricted by the partial index predicate of jobs_owed_hooks_idx', async () => {
    const { ds, sent } = fakeDataSource([{ count: '0', oldest_age_seconds: null }]);
    await new OwedFailureHookCounts(ds).count();
    expect(sent).toHaveLength(1);
    // The planner uses a partial index only for a condition that implies its predicate.
    expect(sent[0].replace(/\s+/g, ' ')).toMatch(/FROM jobs WHERE failure_hook_due_at IS NOT NULL$/);
  });

  it('reads PostgreSQL numeric strings, and no owed row as 0 and 0', async () => {
    expect(await new OwedFailureHookCounts(fakeDataSource([{ count: '2', oldest_age_seconds: '90.150346' }]).ds).count()).toEqual({ count: 2, oldestAgeSeconds: 90.150346 });
    expect(await new OwedFailureHookCounts(fakeDataSource([{ count: '0', oldest_age_seconds: null }]).ds).count()).toEqual({ count: 0, oldestAgeSeconds: 0 });
    // An age is never negative, whatever the arithmetic answers.
    expect(await new OwedFailureHookCounts(fakeDataSource([{ count: 1, oldest_age_seconds: '-0.002' }]).ds).count()).toEqual({ count: 1, oldestAgeSeconds: 0 });
  });
});
