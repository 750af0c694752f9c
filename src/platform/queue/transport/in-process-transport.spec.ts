import { afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { InProcessTransport } from './in-process-transport.js';

/** A run function whose calls stay open until released, to observe concurrency. */
function gatedRunner() {
  const started: string[] = [];
  const release = new Map<string, () => void>();
  const run = (id: string) =>
    new Promise<void>((resolve) => {
      started.push(id);
      release.set(id, resolve);
    });
  return { started, release, run };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('InProcessTransport', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('holds ids until a consumer starts, then runs at most `concurrency` at once in FIFO order', async () => {
    const t = new InProcessTransport(2);
    const g = gatedRunner();
    for (const id of ['a', 'b', 'c']) await t.add(id);
    expect(g.started).toEqual([]);
    t.consume(g.run);
    expect(g.started).toEqual(['a', 'b']);
    g.release.get('a')!();
    await tick();
    expect(g.started).toEqual(['a', 'b', 'c']);
  });

  it('ignores an id already waiting or running, and takes it again once it finished', async () => {
    const t = new InProcessTransport(1);
    const g = gatedRunner();
    t.consume(g.run);
    await t.add('a');
    await t.add('b');
    await t.add('a');
    await t.add('b');
    expect(t.size).toBe(2);
    g.release.get('a')!();
    await tick();
    g.release.get('b')!();
    await tick();
    expect(g.started).toEqual(['a', 'b']);
    await t.add('a');
    expect(g.started).toEqual(['a', 'b', 'a']);
  });

  it('keeps going after a run rejects', async () => {
    const t = new InProcessTransport(1);
    const ran: string[] = [];
    t.consume(async (id) => {
      ran.push(id);
      if (id === 'bad') throw new Error('boom');
    });
    await t.add('bad');
    await t.add('good');
    await tick();
    await tick();
    expect(ran).toEqual(['bad', 'good']);
    expect(t.size).toBe(0);
  });

  describe('a run that rejects (its row could not be claimed)', () => {
    afterEach(() => {
      jest.useRealTimers();
    });

    it('is delivered again after 0.5 s, then 1 s, until it succeeds', async () => {
      jest.useFakeTimers();
      const t = new InProcessTransport(1);
      const ran: number[] = [];
      let failures = 2;
      const started = Date.now();
      t.consume(async () => {
        ran.push(Date.now() - started);
        if (failures-- > 0) throw new Error('connect ECONNREFUSED');
      });
      await t.add('a');
      await jest.advanceTimersByTimeAsync(499);
      expect(ran).toEqual([0]);
      await jest.advanceTimersByTimeAsync(1);
      expect(ran).toEqual([0, 500]);
      await jest.advanceTimersByTimeAsync(1_000);
      expect(ran).toEqual([0, 500, 1_500]);
      await jest.advanceTimersByTimeAsync(60_000);
      expect(ran).toEqual([0, 500, 1_500]);
      expect(t.size).toBe(0);
    });

    it('is not delivered again once the transport closed', async () => {
      jest.useFakeTimers();
      const t = new InProcessTransport(1);
      const ran: string[] = [];
      t.consume(async (id) => {
        ran.push(id);
        throw new Error('connect ECONNREFUSED');
      });
      await t.add('a');
      await jest.advanceTimersByTimeAsync(0);
      await t.close();
      await jest.advanceTimersByTimeAsync(10_000);
      expect(ran).toEqual(['a']);
    });
  });

  it('close waits for running jobs, drops waiting ones and refuses new ones', async () => {
    const t = new InProcessTransport(1);
    const g = gatedRunner();
    t.consume(g.run);
    await t.add('a');
    await t.add('b');
    let closed = false;
    const closing = t.close().then((report) => ((closed = true), report));
    await tick();
    expect(closed).toBe(false);
    g.release.get('a')!();
    await expect(closing).resolves.toEqual({ finished: 1, abandoned: 0, dropped: [{ jobId: 'b', key: 'b' }] });
    await t.add('c');
    expect(g.started).toEqual(['a']);
  });

  it('close stops waiting when told to let go, and reports the runs it left', async () => {
    const t = new InProcessTransport(2);
    const g = gatedRunner();
    t.consume(g.run);
    await t.add('a');
    await t.add('b', 'b:1');
    let letGo!: () => void;
    const closing = t.close(new Promise<void>((resolve) => (letGo = resolve)));
    g.release.get('a')!();
    await tick();
    letGo();
    await expect(closing).resolves.toEqual({ finished: 1, abandoned: 1, dropped: [] });
  });
});
