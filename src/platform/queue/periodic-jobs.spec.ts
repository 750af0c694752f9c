import { describe, expect, it } from '@jest/globals';
import { PeriodicPass } from './periodic-jobs.js';

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
