import { describe, expect, it } from '@jest/globals';
import { PollingLoop } from './polling-loop.js';

/** Lets every settled promise and immediate callback run: after it, a loop that idles has stopped passing. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i += 1) await new Promise((resolve) => setImmediate(resolve));
  expect(check()).toBe(true);
}

/** A loop whose passes answer `answers` in turn (then "nothing more"), and a log of its warnings. */
function loopOf(answers: Array<boolean | Error>, pollMs = 60_000, onPass?: (loop: PollingLoop) => void) {
  const warnings: unknown[] = [];
  let passes = 0;
  const loop: PollingLoop = new PollingLoop({
    what: 'spec claim',
    logger: { warn: (line: unknown) => void warnings.push(line) },
    pollMs,
    pass: async () => {
      const answer = answers[passes] ?? false;
      passes += 1;
      onPass?.(loop);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  });
  return { loop, warnings, passes: () => passes };
}

describe('PollingLoop', () => {
  it('looks again at once while passes answer "more", then idles until woken', async () => {
    const { loop, passes } = loopOf([true, true, false]);
    loop.start();
    await until(() => passes() === 3);
    await settle();
    expect(passes()).toBe(3);
    loop.wake();
    await until(() => passes() === 4);
    await loop.stop();
  });

  it('keeps a wake that arrives during a pass: the next idle ends at once', async () => {
    let woke = false;
    const { loop, passes } = loopOf([false, false], 60_000, (l) => {
      if (!woke) l.wake();
      woke = true;
    });
    loop.start();
    await until(() => passes() === 2);
    await settle();
    expect(passes()).toBe(2);
    await loop.stop();
  });

  it('looks again after pollMs without a wake', async () => {
    const { loop, passes } = loopOf([false, false], 5);
    loop.start();
    const started = Date.now();
    while (passes() < 2 && Date.now() - started < 5_000) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(passes()).toBeGreaterThanOrEqual(2);
    await loop.stop();
  });

  it('survives failing passes and warns once per failing streak', async () => {
    const { loop, passes, warnings } = loopOf([new Error('claim broke'), new Error('claim broke'), false, new Error('again')]);
    loop.start();
    for (const n of [2, 3, 4]) {
      await until(() => passes() === n - 1);
      await settle();
      loop.wake();
    }
    await until(() => passes() === 4);
    await settle();
    expect(warnings).toEqual([{ msg: 'spec claim failed', err: 'Error: claim broke' }, { msg: 'spec claim failed', err: 'Error: again' }]);
    await loop.stop();
  });

  it('stops after the running pass and starts no other', async () => {
    let release!: () => void;
    let passes = 0;
    const loop = new PollingLoop({
      what: 'spec claim',
      logger: { warn: () => undefined },
      pollMs: 60_000,
      pass: async () => {
        passes += 1;
        await new Promise<void>((resolve) => (release = resolve));
        return true;
      },
    });
    loop.start();
    await until(() => passes === 1);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await settle();
    expect([stopped, loop.stopping]).toEqual([false, true]);
    release();
    await stopping;
    expect(passes).toBe(1);
  });
});
