import { beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { MemoryJobStore } from '../../../test/fakes/queue-memory-job-store.js';
import { AppError } from '../../core/index.js';
import type { Tx } from '../database/index.js';
import { outages } from '../health/outages.js';
import { Metrics } from '../metrics/metrics.js';
import { RealtimePublisher, type RealtimeEvent } from '../realtime/realtime.types.js';
import { HandlerLookup, type RegisteredHandler } from './handler-registry.js';
import { JobRunner, owedHookRetryMs } from './job-runner.js';
import type { MediaUrls } from '../storage/index.js';
import type { JobContext, JobFailureHookFn, JobHandlerFn, JobRecord } from './job.types.js';

class RecordingPublisher extends RealtimePublisher {
  readonly events: Array<{ workspaceId: string; event: RealtimeEvent }> = [];
  failing = false;
  async publish(workspaceId: string, event: RealtimeEvent): Promise<void> {
    if (this.failing) throw new Error('redis down');
    this.events.push({ workspaceId, event });
  }
  types(): string[] {
    return this.events.map((e) => e.event.type);
  }
  jobs(): Array<Record<string, unknown>> {
    return this.events.map((e) => (e.event as { job: Record<string, unknown> }).job);
  }
}

class Handlers extends HandlerLookup {
  readonly table = new Map<string, RegisteredHandler>();
  set(jobType: string, run: JobHandlerFn, onFailed?: JobFailureHookFn): void {
    this.table.set(jobType, { jobType, run, onFailed });
  }
  handlerFor(jobType: string): RegisteredHandler | undefined {
    return this.table.get(jobType);
  }
}

/** How many runs the job duration histogram saw, by `type/outcome`. */
async function jobDurationCounts(metrics: Metrics): Promise<Record<string, number>> {
  const metric = await metrics.registry.getSingleMetric('persona_job_duration_seconds')!.get();
  const counts = metric.values.filter((v) => (v as { metricName?: string }).metricName === 'persona_job_duration_seconds_count');
  return Object.fromEntries(counts.map((v) => [`${v.labels.type}/${v.labels.outcome}`, v.value]));
}

const WS = 'ws_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const JOB = 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV';

/** Signs a key the way a test can read back: what a socket event shows for a job's outputs. */
const SIGNER = { sign: (key: string) => `https://media.test/${key}?sig=x` } as unknown as MediaUrls;

describe('JobRunner', () => {
  beforeAll(() => Logger.overrideLogger(false));

  let store: MemoryJobStore;
  let publisher: RecordingPublisher;
  let handlers: Handlers;
  let runner: JobRunner;
  let metrics: Metrics;

  beforeEach(() => {
    hookRuns.length = 0;
    store = new MemoryJobStore();
    publisher = new RecordingPublisher();
    handlers = new Handlers();
    metrics = new Metrics();
    runner = new JobRunner(store, handlers, publisher, metrics, SIGNER);
    store.seed({ id: JOB, workspaceId: WS, jobType: 'thing' });
  });

  const row = (): JobRecord => store.rows.get(JOB)!;

  it('claims, reports progress and completes with the result', async () => {
    let seen: JobRecord | undefined;
    handlers.set('thing', async (ctx) => {
      seen = ctx.job;
      await ctx.progress(40);
      return { embedding: 'ok' };
    });
    await runner.run(JOB);

    expect(seen).toMatchObject({ status: 'running', attempts: 1 });
    expect(row()).toMatchObject({ status: 'completed', progress: 100, result: { embedding: 'ok' }, error: null, attempts: 1 });
    expect(row().startedAt).toBeInstanceOf(Date);
    expect(row().finishedAt).toBeInstanceOf(Date);
    expect(publisher.types()).toEqual(['job.progress', 'job.progress', 'job.completed']);
    expect(publisher.events.every((e) => e.workspaceId === WS)).toBe(true);
    expect(publisher.jobs().map((j) => [j.status, j.progress])).toEqual([['running', 0], ['running', 40], ['completed', 100]]);
    expect(publisher.jobs()[2]).toMatchObject({ id: JOB, job_type: 'thing', result: { embedding: 'ok' } });
    expect(await jobDurationCounts(metrics)).toEqual({ 'thing/completed': 1 });
  });

  it('announces a job its work ended from outside the run (settled), once, as completed or failed', async () => {
    handlers.set('thing', async () => {
      // A webhook ends the work while the handler still waits: the row completes in that transaction.
      await store.settle(store.failTx, WS, JOB, { status: 'completed', result: { made: 'by the webhook' } });
      return { made: 'by the run' };
    });
    await runner.run(JOB);
    expect(row()).toMatchObject({ status: 'completed', progress: 100, result: { made: 'by the webhook' } });
    expect(publisher.types()).toEqual(['job.progress', 'job.completed']);
    expect(publisher.jobs()[1]).toMatchObject({ status: 'completed', result: { made: 'by the webhook' } });

    store.seed({ id: `${JOB.slice(0, -1)}B`, workspaceId: WS, jobType: 'thing' });
    handlers.set('thing', async (ctx) => {
      await store.settle(store.failTx, WS, ctx.job.id, { status: 'failed', error: { code: 'upstream_failed', message: 'The training failed.' } });
      throw new AppError('upstream_failed', 'The training failed.');
    });
    await runner.run(`${JOB.slice(0, -1)}B`);
    expect(publisher.types().slice(2)).toEqual(['job.progress', 'job.failed']);
    expect(publisher.jobs()[3]).toMatchObject({ status: 'failed', error: { code: 'upstream_failed' } });
  });

  it('signs the files a job made into URLs on its events, and never shows their storage keys', async () => {
    handlers.set('thing', async () => ({ content_id: 'cnt_1', outputs: [{ kind: 'image', key: 'content/cnt_1/a.png' }] }));
    await runner.run(JOB);
    expect(publisher.jobs()[1].result).toEqual({ content_id: 'cnt_1', outputs: [{ kind: 'image', url: 'https://media.test/content/cnt_1/a.png?sig=x' }] });
    expect(JSON.stringify(publisher.jobs())).not.toContain('"key"');
  });

  it('fails with the AppError code and message, runs the failure hook in the failing transaction', async () => {
    const hookCalls: Array<{ tx: Tx; job: JobRecord }> = [];
    handlers.set(
      'thing',
      async () => {
        throw new AppError('upstream_failed', 'The image provider did not answer.');
      },
      async (tx, job) => {
        hookCalls.push({ tx, job });
      },
    );
    await runner.run(JOB);

    expect(row()).toMatchObject({ status: 'failed', error: { code: 'upstream_failed', message: 'The image provider did not answer.' } });
    expect(row().finishedAt).toBeInstanceOf(Date);
    expect(hookCalls).toHaveLength(1);
    expect(hookCalls[0].tx).toBe(store.failTx);
    expect(hookCalls[0].job).toMatchObject({ id: JOB, status: 'failed', error: { code: 'upstream_failed' } });
    expect(publisher.types()).toEqual(['job.progress', 'job.failed']);
    expect(publisher.jobs()[1]).toMatchObject({ status: 'failed', error: { code: 'upstream_failed' } });
    expect(await jobDurationCounts(metrics)).toEqual({ 'thing/failed': 1 });
  });

  it('fails an unexpected error as job_failed without leaking its message or stack', async () => {
    handlers.set('thing', async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.5:5432 SELECT * FROM secrets');
    });
    await runner.run(JOB);

    expect(row().status).toBe('failed');
    expect(row().error).toEqual({ code: 'job_failed', message: 'The job failed unexpectedly.' });
    expect(JSON.stringify(publisher.events)).not.toMatch(/ECONNREFUSED|SELECT|at .*\(/);
  });

  it('fails a write the disk refused (full, read-only) as storage_unavailable, without the path', async () => {
    handlers.set('thing', async () => {
      throw Object.assign(new Error("ENOSPC: no space left on device, write '/srv/media/content/x.png.tmp'"), { code: 'ENOSPC', syscall: 'write' });
    });
    await runner.run(JOB);

    expect(row().status).toBe('failed');
    expect(row().error).toEqual({ code: 'storage_unavailable', message: 'Media storage is unavailable; please try again later.' });
    expect(JSON.stringify(publisher.events)).not.toMatch(/srv\/media/);
  });

  it('still fails the job when the failure hook throws (the hook rolls back)', async () => {
    handlers.set(
      'thing',
      async () => {
        throw new AppError('upstream_failed', 'no');
      },
      async () => {
        throw new Error('refund failed');
      },
    );
    await runner.run(JOB);
    expect(row()).toMatchObject({ status: 'failed', error: { code: 'upstream_failed' } });
    expect(publisher.types()).toEqual(['job.progress', 'job.failed']);
  });

  it('a failure whose hook (refund) throws is recorded owing the hook, which the sweep pays once when it commits', async () => {
    const refunds: string[] = [];
    let refundWorks = false;
    handlers.set(
      'thing',
      async () => {
        throw new AppError('upstream_failed', 'no');
      },
      async (_tx, job) => {
        if (!refundWorks) throw new Error('refund transaction failed');
        refunds.push(job.id);
      },
    );
    await runner.run(JOB);
    expect(row()).toMatchObject({ status: 'failed', error: { code: 'upstream_failed' } });
    // The debt is recorded with the failure, not dropped.
    expect(store.owed.get(JOB)).toEqual({ tries: 0, due: false });

    store.makeOwedHooksDue();
    await expect(runner.payOwedHooks()).resolves.toBe(0);
    expect(store.owed.get(JOB)).toEqual({ tries: 1, due: false });
    expect(refunds).toEqual([]);

    refundWorks = true;
    store.makeOwedHooksDue();
    await expect(runner.payOwedHooks()).resolves.toBe(1);
    expect(refunds).toEqual([JOB]);
    expect(store.owed.has(JOB)).toBe(false);
    store.makeOwedHooksDue();
    await expect(runner.payOwedHooks()).resolves.toBe(0);
    expect(refunds).toEqual([JOB]);
    expect(publisher.types()).toEqual(['job.progress', 'job.failed']);
  });

  it('an owed hook is retried after 2 s, doubling up to 5 minutes', () => {
    expect([0, 1, 2, 3, 7, 8, 40].map(owedHookRetryMs)).toEqual([2_000, 4_000, 8_000, 16_000, 256_000, 300_000, 300_000]);
  });

  it('a claim that fails for a database error rejects (the transport delivers it again) and changes nothing', async () => {
    const ran: string[] = [];
    handlers.set('thing', async (ctx) => void ran.push(ctx.job.id));
    const claim = store.claim.bind(store);
    store.claim = async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    };
    await expect(runner.run(JOB)).rejects.toThrow('ECONNREFUSED');
    expect(row()).toMatchObject({ status: 'pending', attempts: 0 });
    expect(publisher.types()).toEqual([]);
    expect(ran).toEqual([]);
    store.claim = claim;
    await runner.run(JOB);
    expect(row()).toMatchObject({ status: 'completed', attempts: 1 });
    expect(ran).toEqual([JOB]);
  });

  it('claims failing through an outage warn once, not once per delivery', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      handlers.set('thing', async () => undefined);
      const claim = store.claim.bind(store);
      store.claim = async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      };
      for (let i = 0; i < 3; i++) await expect(runner.run(JOB)).rejects.toThrow();
      store.claim = claim;
      await runner.run(JOB);
      store.claim = async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      };
      await expect(runner.run(JOB)).rejects.toThrow();
      const claimWarnings = warn.mock.calls.filter(([line]) => (line as { msg?: string }).msg === 'job not claimed; delivered again after a back-off');
      expect(claimWarnings).toHaveLength(2);
    } finally {
      warn.mockRestore();
    }
  });

  it('fails a job whose type has no handler with a readable error', async () => {
    await runner.run(JOB);
    expect(row().status).toBe('failed');
    expect(row().error).toEqual({ code: 'job_failed', message: 'No handler is registered for job type "thing".' });
    expect(publisher.types()).toEqual(['job.progress', 'job.failed']);
  });

  it.each(['completed', 'failed', 'cancelled'] as const)('skips a re-delivered %s job without running it', async (status) => {
    store.rows.set(JOB, { ...row(), status, attempts: 1 });
    let ran = false;
    handlers.set('thing', async () => {
      ran = true;
    });
    await runner.run(JOB);
    expect(ran).toBe(false);
    expect(row()).toMatchObject({ status, attempts: 1 });
    expect(publisher.events).toEqual([]);
  });

  it('skips an id with no row', async () => {
    await runner.run('job_01BX5ZZKBKACTAV9WEVGEMMVRZ');
    expect(publisher.events).toEqual([]);
  });

  it('re-runs a job re-delivered while still marked running (a dead worker) and keeps its progress', async () => {
    store.rows.set(JOB, { ...row(), status: 'running', attempts: 1, progress: 60, startedAt: new Date('2024-11-21T10:00:01Z') });
    handlers.set('thing', async (ctx) => {
      await ctx.progress(30);
      await ctx.progress(80);
      return { done: true };
    });
    await runner.run(JOB);
    expect(row()).toMatchObject({ status: 'completed', attempts: 2, result: { done: true } });
    expect(row().startedAt).toEqual(new Date('2024-11-21T10:00:01Z'));
    expect(publisher.jobs().map((j) => j.progress)).toEqual([60, 80, 100]);
  });

  it('keeps progress monotonic and within 0-100', async () => {
    const observed: number[] = [];
    handlers.set('thing', async (ctx: JobContext) => {
      for (const p of [30, 20, 30, 55.4, Number.NaN, -5, 150, 90]) {
        await ctx.progress(p);
        observed.push(row().progress);
      }
      return undefined;
    });
    await runner.run(JOB);
    expect(observed).toEqual([30, 30, 30, 55, 55, 55, 100, 100]);
    expect(publisher.jobs().map((j) => j.progress)).toEqual([0, 30, 55, 100, 100]);
    expect(publisher.types().at(-1)).toBe('job.completed');
    expect(row().result).toBeNull();
  });

  it('does not overwrite a job cancelled while its handler ran', async () => {
    handlers.set('thing', async () => {
      store.rows.set(JOB, { ...row(), status: 'cancelled' });
      return { late: true };
    });
    await runner.run(JOB);
    expect(row()).toMatchObject({ status: 'cancelled', result: null });
    expect(publisher.types()).toEqual(['job.progress']);
  });

  it('completes the job even when events cannot be published', async () => {
    publisher.failing = true;
    handlers.set('thing', async (ctx) => {
      await ctx.progress(50);
      return { ok: true };
    });
    await runner.run(JOB);
    expect(row().status).toBe('completed');
  });
  /**
   * A handler whose every run waits until the test lets that run go on (`go(n)`, n-th run from 0),
   * then answers `result` (with the attempt it ran as) or throws `error`.
   */
  function held(outcome: { result?: Record<string, unknown>; error?: Error } = {}) {
    const seen: JobContext[] = [];
    const gates: Array<() => void> = [];
    const entered: Array<() => void> = [];
    const started = () => new Promise<void>((resolve) => entered.push(resolve));
    handlers.set('thing', async (ctx) => {
      seen.push(ctx);
      await new Promise<void>((resolve) => {
        gates.push(resolve);
        entered.shift()?.();
      });
      await ctx.progress(90);
      if (outcome.error) throw outcome.error;
      return outcome.result && { ...outcome.result, attempt: ctx.job.attempts };
    }, async () => void hookRuns.push(JOB));
    return { seen, go: (n = 0) => gates[n](), started };
  }
  const hookRuns: string[] = [];

  it('a run that lost its claim to a later run can neither complete nor fail the job: the later run finishes it, once', async () => {
    const h = held({ result: { from: 'a run' } });
    const firstStarted = h.started();
    const first = runner.run(JOB);
    await firstStarted;
    // A second delivery claims the job (a peer after a stall): attempt 2 now owns the row.
    const secondStarted = h.started();
    const second = runner.run(JOB);
    await secondStarted;
    // The stale run ends first: it must not finish the job the second run now holds.
    h.go(0);
    await first;
    expect(row()).toMatchObject({ status: 'running', attempts: 2, result: null });
    h.go(1);
    await second;
    expect(row()).toMatchObject({ status: 'completed', attempts: 2, progress: 100, result: { from: 'a run', attempt: 2 } });
    expect(publisher.types().filter((t) => t === 'job.completed')).toHaveLength(1);
    // Only the run that finished the job is measured.
    expect(await jobDurationCounts(metrics)).toEqual({ 'thing/completed': 1 });
  });

  it('a stale run that fails runs no failure hook (no refund) and leaves the job to its owner', async () => {
    const h = held({ error: new AppError('upstream_failed', 'late') });
    const firstStarted = h.started();
    const first = runner.run(JOB);
    await firstStarted;
    store.rows.set(JOB, { ...row(), attempts: 2 }); // claimed again elsewhere
    h.go();
    await first;
    expect(row()).toMatchObject({ status: 'running', attempts: 2, error: null });
    expect(hookRuns).toEqual([]);
    expect(publisher.types()).toEqual(['job.progress']);
    expect(await jobDurationCounts(metrics)).toEqual({});
  });

  it('releases a running job at a stop: the row is pending again, the handler is aborted and what it does later is ignored', async () => {
    const h = held({ result: { from: 'released run' } });
    const started = h.started();
    const first = runner.run(JOB);
    await started;
    expect(runner.running).toBe(1);
    await expect(runner.releaseRunning()).resolves.toBe(1);
    expect(row()).toMatchObject({ status: 'pending', attempts: 1 });
    expect(h.seen[0].signal.aborted).toBe(true);
    h.go();
    await first;
    expect(row()).toMatchObject({ status: 'pending', progress: 0, result: null });
    expect(publisher.types()).toEqual(['job.progress']);
    expect(runner.running).toBe(0);

    // The next delivery (the re-send at the next start) runs it again and completes it.
    handlers.set('thing', async () => ({ from: 'second run' }));
    await runner.run(JOB);
    expect(row()).toMatchObject({ status: 'completed', attempts: 2, result: { from: 'second run' } });
    expect(publisher.types().filter((t) => t === 'job.completed')).toHaveLength(1);
  });

  it('a released handler that then throws does not fail the job', async () => {
    const h = held({ error: new AppError('upstream_failed', 'the stop cut the provider call') });
    const started = h.started();
    const first = runner.run(JOB);
    await started;
    await runner.releaseRunning();
    h.go();
    await first;
    expect(row()).toMatchObject({ status: 'pending', error: null });
    expect(hookRuns).toEqual([]);
  });

  it('releases nothing when nothing runs', async () => {
    await expect(runner.releaseRunning()).resolves.toBe(0);
    expect(row().status).toBe('pending');
  });
  it('runs a job again when its handler met a database or Redis outage, instead of failing it and running its failure hook', async () => {
    let calls = 0;
    let probes = 0;
    // The database's probe: down when the handler meets the outage, up from then on.
    outages.register('database', async () => {
      probes += 1;
      if (probes === 1) throw new Error('down');
    }, 5432);
    const hooked: string[] = [];
    handlers.set(
      'thing',
      async () => {
        calls += 1;
        if (calls === 1) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', port: 5432 });
        return { made: 'after the outage' };
      },
      async (_tx, job) => {
        hooked.push(job.id);
      },
    );
    await runner.run(JOB);
    expect(calls).toBe(2);
    expect(hooked).toEqual([]);
    expect(row()).toMatchObject({ status: 'completed', attempts: 2, result: { made: 'after the outage' }, error: null });
    expect(publisher.types()).not.toContain('job.failed');
    expect(runner.running).toBe(0);
  });

  it('runs a job again when its handler met a bare reset that names nobody while the database is down', async () => {
    await databaseDownForOneProbe();
    let calls = 0;
    handlers.set('thing', async () => {
      calls += 1;
      if (calls === 1) throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
      return { made: 'after the outage' };
    });
    await runner.run(JOB);
    expect(calls).toBe(2);
    expect(row()).toMatchObject({ status: 'completed', attempts: 2 });
  });

  it('fails a job whose handler met a bare reset while every dependency answers (a provider hung up)', async () => {
    outages.register('database', async () => 'up', 5432);
    while (outages.isDown('database')) await new Promise((r) => setTimeout(r, 20));
    handlers.set('thing', async () => {
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
    });
    await runner.run(JOB);
    expect(row()).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('fails a job whose handler met a refused connection while every dependency answers (a provider down)', async () => {
    outages.register('database', async () => 'up', 5432);
    // An outage an earlier case began ends at the next probe.
    while (outages.isDown('database')) await new Promise((r) => setTimeout(r, 20));
    let calls = 0;
    handlers.set('thing', async () => {
      calls += 1;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', port: 5432 });
    });
    await runner.run(JOB);
    expect(calls).toBe(1);
    expect(row()).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('a claim failing for an error that names no outage warns nothing when the probes find the database down', async () => {
    await databaseDownForOneProbe();
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      handlers.set('thing', async () => undefined);
      const claim = store.claim.bind(store);
      store.claim = async () => {
        throw Object.assign(new Error('Query runner already released. Cannot run queries anymore.'), { name: 'QueryRunnerAlreadyReleasedError' });
      };
      await expect(runner.run(JOB)).rejects.toThrow('already released');
      store.claim = claim;
      const lines = warn.mock.calls.map(([line]) => (line as { msg?: string }).msg);
      expect(lines).not.toContain('job not claimed; delivered again after a back-off');
      expect(lines).toContain('dependency unavailable');
      while (outages.isDown('database')) await new Promise((r) => setTimeout(r, 20));
    } finally {
      warn.mockRestore();
    }
  });
});

/** Ends any outage an earlier case began, then registers a database probe that fails once (the next outage) and answers after. */
async function databaseDownForOneProbe(): Promise<void> {
  outages.register('database', async () => 'up', 5432);
  while (outages.isDown('database')) await new Promise((r) => setTimeout(r, 20));
  let probes = 0;
  outages.register('database', async () => {
    probes += 1;
    if (probes === 1) throw new Error('down');
  }, 5432);
}
