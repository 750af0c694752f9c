import { describe, expect, it } from '@jest/globals';
import { releaseAfterMs, ShutdownCoordinator, type ShutdownClock, type ShutdownStep } from './shutdown-coordinator.js';

/** A clock moved by hand: timers fire only when the test advances it past them. */
class ManualClock implements ShutdownClock {
  private at = 0;
  private timers: Array<{ due: number; fire(): void; cancelled: boolean }> = [];

  now(): number {
    return this.at;
  }

  after(ms: number): { promise: Promise<void>; cancel(): void } {
    let fire!: () => void;
    const promise = new Promise<void>((resolve) => (fire = resolve));
    const timer = { due: this.at + ms, fire, cancelled: false };
    this.timers.push(timer);
    return { promise, cancel: () => void (timer.cancelled = true) };
  }

  async advance(ms: number): Promise<void> {
    this.at += ms;
    for (const t of this.timers.filter((t) => !t.cancelled && t.due <= this.at)) {
      t.cancelled = true;
      t.fire();
    }
    await settle();
  }
}

/** Lets every promise callback queued so far run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A step that stays open until the test finishes it, recording when it started and what it was told. */
function gate(name: string, log: string[], report?: Record<string, unknown>) {
  let finish!: () => void;
  let releaseSeen = false;
  const step: ShutdownStep = {
    name,
    run: ({ releaseAt }) => {
      log.push(`start ${name}`);
      void releaseAt.then(() => (releaseSeen = true));
      return new Promise((resolve) => (finish = () => resolve(report)));
    },
  };
  return { step, finish: async () => (finish(), settle()), released: () => releaseSeen };
}

function setup(steps: ShutdownStep[], timeoutMs = 25_000) {
  const clock = new ManualClock();
  const lines: Array<{ level: string } & Record<string, unknown>> = [];
  const exits: number[] = [];
  const coordinator = new ShutdownCoordinator({
    role: 'api',
    timeoutMs,
    steps,
    clock,
    log: (level, fields) => lines.push({ level, ...fields }),
    exit: (code) => exits.push(code),
  });
  return { clock, lines, exits, coordinator };
}

describe('ShutdownCoordinator', () => {
  it('runs the steps one after the other, logs one line at the start and one at the end with their counts, and exits 0', async () => {
    const log: string[] = [];
    const a = gate('accept', log, { requests_drained: 3 });
    const b = gate('close', log, { jobs_released: 1 });
    const { clock, lines, exits, coordinator } = setup([a.step, b.step]);

    coordinator.handle('SIGTERM');
    await settle();
    expect(lines).toEqual([{ level: 'info', msg: 'api stopping', signal: 'SIGTERM', timeout_s: 25 }]);
    expect(log).toEqual(['start accept']);

    await clock.advance(1200);
    await a.finish();
    expect(log).toEqual(['start accept', 'start close']);
    expect(exits).toEqual([]);

    await clock.advance(300);
    await b.finish();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toEqual({ level: 'info', msg: 'api stopped', signal: 'SIGTERM', requests_drained: 3, jobs_released: 1, duration_ms: 1500 });
    expect(exits).toEqual([0]);
  });

  it('tells the steps to let running work go at the release point, before the bound', async () => {
    const a = gate('drain', []);
    const { clock, exits, coordinator } = setup([a.step], 25_000);
    coordinator.handle('SIGTERM');
    await settle();
    await clock.advance(releaseAfterMs(25_000) - 1);
    expect(a.released()).toBe(false);
    await clock.advance(1);
    expect(a.released()).toBe(true);
    expect(exits).toEqual([]);
    await a.finish();
    expect(exits).toEqual([0]);
  });

  it('exits 1 with a forced line when the bound passes, and ignores the steps that end later', async () => {
    const a = gate('drain', []);
    const { clock, lines, exits, coordinator } = setup([a.step], 3000);
    coordinator.handle('SIGINT');
    await settle();
    await clock.advance(2999);
    expect(exits).toEqual([]);
    await clock.advance(1);
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toEqual({ level: 'error', msg: 'api stop forced', reason: 'timeout', signal: 'SIGINT', duration_ms: 3000 });
    await a.finish();
    expect(exits).toEqual([1]);
    expect(lines).toHaveLength(2);
  });

  it('a second signal forces the exit at once', async () => {
    const a = gate('drain', []);
    const { lines, exits, coordinator } = setup([a.step]);
    coordinator.handle('SIGTERM');
    await settle();
    coordinator.handle('SIGINT');
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toMatchObject({ level: 'error', msg: 'api stop forced', reason: 'second signal', signal: 'SIGINT' });
    await a.finish();
    coordinator.handle('SIGTERM');
    expect(exits).toEqual([1]);
  });

  it('a step that throws ends the stop with exit 1 and skips the steps after it', async () => {
    const log: string[] = [];
    const later = gate('close', log);
    const failing: ShutdownStep = { name: 'drain', run: async () => { throw new Error('pool gone'); } };
    const { lines, exits, coordinator } = setup([failing, later.step]);
    coordinator.handle('SIGTERM');
    await settle();
    expect(log).toEqual([]);
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toMatchObject({ level: 'error', msg: 'api stop failed', err: 'pool gone' });
  });

  it('listens to SIGTERM and SIGINT', () => {
    const handlers = new Map<string, () => void>();
    const { lines, coordinator } = setup([]);
    coordinator.listen({ on: (event: string, listener: () => void) => handlers.set(event, listener) });
    expect([...handlers.keys()].sort()).toEqual(['SIGINT', 'SIGTERM']);
    handlers.get('SIGTERM')!();
    expect(lines[0]).toMatchObject({ msg: 'api stopping', signal: 'SIGTERM' });
  });
});

describe('releaseAfterMs', () => {
  it('keeps a fifth of the bound (1 s to 5 s, at most half) for closing after the release', () => {
    expect(releaseAfterMs(25_000)).toBe(20_000);
    expect(releaseAfterMs(60_000)).toBe(55_000);
    expect(releaseAfterMs(3000)).toBe(2000);
    expect(releaseAfterMs(1000)).toBe(500);
  });
});
