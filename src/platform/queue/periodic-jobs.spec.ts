import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { AppConfig } from '../../config/index.js';
import type { ProcessRole } from '../../core/index.js';
import type { ProcessLifecycle } from '../lifecycle/index.js';
import { PeriodicPass, PeriodicPasses } from './periodic-jobs.js';

/** A pass the test ends when it likes. */
function controlledPass() {
  let calls = 0;
  let finish: (n: number) => void = () => undefined;
  const pass = new PeriodicPass(() => {
    calls += 1;
    return new Promise<number>((resolve) => (finish = resolve));
  });
  return { pass, calls: () => calls, finish: (n: number) => finish(n) };
}

describe('PeriodicPass', () => {
  it('joins a pass still running instead of starting a second one', async () => {
    const t = controlledPass();
    const first = t.pass.run();
    const second = t.pass.run();
    t.finish(3);
    expect(await Promise.all([first, second])).toEqual([3, 3]);
    expect(t.calls()).toBe(1);
    const third = t.pass.run();
    t.finish(1);
    expect(await third).toBe(1);
    expect(t.calls()).toBe(2);
  });

  it('waits for the running pass when stopped, then runs no more', async () => {
    const t = controlledPass();
    const running = t.pass.run();
    let stopped = false;
    const stopping = t.pass.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    t.finish(2);
    await stopping;
    expect(await running).toBe(2);
    expect(await t.pass.run()).toBe(0);
    expect(t.calls()).toBe(1);
  });
});

describe('PeriodicPass timed runs', () => {
  it('warns once per failing streak of timed passes, naming the pass, and keeps ticking', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const stops: Array<() => Promise<unknown>> = [];
    const lifecycle = { onStop: (fn: () => Promise<unknown>) => stops.push(fn) } as unknown as ProcessLifecycle;
    const outcomes = ['fail', 'fail', 'fail', 'ok', 'fail'];
    let calls = 0;
    const pass = new PeriodicPass(async () => {
      const outcome = outcomes[calls++] ?? 'ok';
      if (outcome === 'fail') throw new TypeError('x is undefined');
      return 1;
    }, 'test.pass');
    try {
      pass.start(5, lifecycle);
      while (calls < outcomes.length + 1) await new Promise((r) => setTimeout(r, 5));
      await Promise.all(stops.map((stop) => stop()));
      const lines = warn.mock.calls.map(([line]) => line as { msg?: string; pass?: string });
      expect(lines.filter((l) => l.msg === 'periodic pass failed; the next tick goes on')).toEqual([
        expect.objectContaining({ pass: 'test.pass', err: 'TypeError: x is undefined' }),
        expect.objectContaining({ pass: 'test.pass', err: 'TypeError: x is undefined' }),
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('PeriodicPasses', () => {
  /** A registry for `role`; `onStop` collects what the process would run at its stop. */
  function registry(role: ProcessRole, runJobsInApi = false) {
    const stops: Array<() => Promise<unknown>> = [];
    const lifecycle = { onStop: (fn: () => Promise<unknown>) => stops.push(fn) } as unknown as ProcessLifecycle;
    return { passes: new PeriodicPasses(role, { runJobsInApi } as AppConfig, lifecycle), stops };
  }

  it('refuses two passes of one name, as the boot must', () => {
    const { passes } = registry('worker');
    passes.register({ name: 'billing.allocations', everyMs: 1000, pass: async () => 0 });
    expect(() => passes.register({ name: 'billing.allocations', everyMs: 5, pass: async () => 0 })).toThrow('two periodic passes are named "billing.allocations"');
  });

  it('starts every pass where queues are consumed: a first pass at boot, and a stop that waits for it', async () => {
    const { passes, stops } = registry('worker');
    let calls = 0;
    passes.register({ name: 'a', everyMs: 60_000, pass: async () => ++calls });
    passes.register({ name: 'b', everyMs: 60_000, pass: async () => ++calls });
    passes.onApplicationBootstrap();
    expect(calls).toBe(2);
    expect(stops).toHaveLength(2);
    await passes.beforeApplicationShutdown();
  });

  it('runs nothing on its own in an API that leaves jobs to the workers, but a pass still runs on demand', async () => {
    const { passes, stops } = registry('api');
    let calls = 0;
    const pass = passes.register({ name: 'a', everyMs: 1, pass: async () => ++calls });
    passes.onApplicationBootstrap();
    expect(calls).toBe(0);
    expect(stops).toHaveLength(0);
    expect(await pass.run()).toBe(1);
    await passes.beforeApplicationShutdown();
  });

  it('starts in an API that runs jobs itself', () => {
    const { passes } = registry('api', true);
    let calls = 0;
    passes.register({ name: 'a', everyMs: 60_000, pass: async () => ++calls });
    passes.onApplicationBootstrap();
    expect(calls).toBe(1);
    return passes.beforeApplicationShutdown();
  });
});
