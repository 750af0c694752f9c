import { beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { MemoryJobStore, RecordingTransport } from '../../../test/fakes/queue-memory-job-store.js';
import { AppConfig } from '../../config/index.js';
import type { ProcessRole } from '../../core/index.js';
import { ProcessLifecycle } from '../lifecycle/index.js';
import { JobConsumer, SWEEP_PAGE } from './job-consumer.js';
import type { JobRunner } from './job-runner.js';

const WS = 'ws_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const secrets = { JWT_SECRET: 'x'.repeat(32), TOKEN_ENCRYPTION_KEY: 'y'.repeat(32) };

function setup(role: ProcessRole, env: Record<string, string>) {
  const store = new MemoryJobStore();
  const transport = new RecordingTransport();
  const ran: string[] = [];
  const runner = { run: async (id: string) => void ran.push(id) } as unknown as JobRunner;
  const consumer = new JobConsumer(role, new AppConfig({ ...secrets, ...env }), transport, runner, store, new ProcessLifecycle());
  return { store, transport, consumer, ran };
}

describe('JobConsumer', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('an API with Redis and without RUN_JOBS_IN_API only produces', async () => {
    const { consumer, transport, store } = setup('api', { REDIS_URL: 'redis://127.0.0.1:6379' });
    store.seed({ id: 'job_a', workspaceId: WS, jobType: 't' });
    expect(consumer.consumes).toBe(false);
    await consumer.onApplicationBootstrap();
    expect(transport.consumer).toBeUndefined();
    expect(transport.added).toEqual([]);
    await consumer.beforeApplicationShutdown();
    expect(transport.closed).toBe(true);
  });

  it.each([
    ['worker', { REDIS_URL: 'redis://127.0.0.1:6379' }],
    ['api', { REDIS_URL: 'redis://127.0.0.1:6379', RUN_JOBS_IN_API: 'true' }],
    ['api', {}],
  ] as const)('the %s role with %j consumes and re-sends pending and running rows at start', async (role, env) => {
    const { consumer, transport, store, ran } = setup(role, env);
    store.seed({ id: 'job_pending', workspaceId: WS, jobType: 't', createdAt: new Date('2024-01-01T00:00:02Z') });
    store.seed({ id: 'job_running', workspaceId: WS, jobType: 't', status: 'running', createdAt: new Date('2024-01-01T00:00:01Z') });
    store.seed({ id: 'job_done', workspaceId: WS, jobType: 't', status: 'completed' });
    store.seed({ id: 'job_failed', workspaceId: WS, jobType: 't', status: 'failed' });
    await consumer.onApplicationBootstrap();
    expect(transport.added).toEqual(['job_running', 'job_pending']);
    await transport.consumer!('job_pending');
    expect(ran).toEqual(['job_pending']);
    await consumer.beforeApplicationShutdown();
  });

  it('the periodic sweep only re-sends rows older than its cut-off', async () => {
    const { consumer, transport, store } = setup('worker', {});
    store.seed({ id: 'job_old', workspaceId: WS, jobType: 't', createdAt: new Date(Date.now() - 120_000) });
    store.seed({ id: 'job_new', workspaceId: WS, jobType: 't', createdAt: new Date() });
    await expect(consumer.resend(new Date(Date.now() - 60_000))).resolves.toBe(1);
    expect(transport.added).toEqual(['job_old']);
  });

  it('the sweep re-sends the whole backlog, a page at a time, not one batch a pass', async () => {
    const { consumer, transport, store } = setup('worker', {});
    const count = SWEEP_PAGE * 2 + 37;
    const base = Date.now() - 3_600_000;
    // Two rows share each creation time: the pages must neither skip nor repeat one.
    for (let i = 0; i < count; i++) store.seed({ id: `job_${String(i).padStart(5, '0')}`, workspaceId: WS, jobType: 't', createdAt: new Date(base + Math.floor(i / 2)) });
    await expect(consumer.resend(new Date())).resolves.toBe(count);
    expect(transport.added).toHaveLength(count);
    expect(new Set(transport.added).size).toBe(count);
  });

  it('a periodic pass re-sends rows older than JOB_SWEEP_INTERVAL_MS and pays owed failure hooks', async () => {
    const { consumer, transport, store } = setup('worker', { JOB_SWEEP_INTERVAL_MS: '5000' });
    let paid = 0;
    (consumer as unknown as { runner: { payOwedHooks(): Promise<number> } }).runner.payOwedHooks = async () => ++paid;
    store.seed({ id: 'job_lost', workspaceId: WS, jobType: 't', createdAt: new Date(Date.now() - 6_000) });
    store.seed({ id: 'job_fresh', workspaceId: WS, jobType: 't', createdAt: new Date(Date.now() - 1_000) });
    await consumer.sweep();
    expect(transport.added).toEqual(['job_lost']);
    expect(paid).toBe(1);
  });
});
