/** A timer the coordinator can be tested with: `after(ms)` resolves once `ms` have passed, unless cancelled. */
export interface ShutdownClock {
  now(): number;
  after(ms: number): { promise: Promise<void>; cancel(): void };
}

/** The real clock. Its timers are unref'd: they bound a stop, they must not be what keeps a process alive. */
export const systemClock: ShutdownClock = {
  now: () => Date.now(),
  after(ms) {
    let timer: NodeJS.Timeout | undefined;
    const promise = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    });
    return { promise, cancel: () => clearTimeout(timer) };
  },
};

/** What a step is told: when whatever is still running must be let go, so the rest still fits in the bound. */
export interface StopContext {
  releaseAt: Promise<void>;
}

/** One step of a stop; what it answers (counts) goes into the final log line. */
export interface ShutdownStep {
  name: string;
  run(ctx: StopContext): Promise<Record<string, unknown> | void>;
}

export interface ShutdownOptions {
  /** `api` or `worker`: the log lines say `api stopping`, `worker stopped`. */
  role: string;
  timeoutMs: number;
  steps: readonly ShutdownStep[];
  log(level: 'info' | 'error', fields: Record<string, unknown>): void;
  exit(code: number): void;
  clock?: ShutdownClock;
}

export const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * When running work is let go: the bound less a reserve for what comes after (writing released
 * jobs back, closing pools and connections): a fifth of the bound, from 1 s to 5 s, never more than
 * half of it. 25 s → release at 20 s; 3 s → at 2 s; 1 s → at 0.5 s.
 */
export function releaseAfterMs(timeoutMs: number): number {
  const reserve = Math.min(Math.min(5000, Math.max(1000, timeoutMs / 5)), timeoutMs / 2);
  return timeoutMs - reserve;
}

/**
 * The one stop path of both process roles. The first SIGTERM or SIGINT logs `<role> stopping`,
 * runs the steps in order and logs `<role> stopped` with what they report, then exits 0. If the
 * bound passes first, or a second signal comes, or a step throws, it logs why and exits 1 at once:
 * an operator's second Ctrl-C, or an orchestrator's patience, always wins.
 */
export class ShutdownCoordinator {
  private startedAt?: number;
  private finished = false;
  private readonly clock: ShutdownClock;

  constructor(private readonly opts: ShutdownOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  /** Handles the stop signals of `target` (the process) from now on. */
  listen(target: { on(event: string, listener: () => void): unknown } = process): void {
    for (const signal of STOP_SIGNALS) target.on(signal, () => this.handle(signal));
  }

  handle(signal: string): void {
    if (this.finished) return;
    if (this.startedAt !== undefined) {
      this.end(1, 'error', { msg: `${this.opts.role} stop forced`, reason: 'second signal', signal });
      return;
    }
    this.startedAt = this.clock.now();
    void this.stop(signal);
  }

  private async stop(signal: string): Promise<void> {
    const { role, timeoutMs, steps, log } = this.opts;
    log('info', { msg: `${role} stopping`, signal, timeout_s: timeoutMs / 1000 });
    const bound = this.clock.after(timeoutMs);
    const release = this.clock.after(releaseAfterMs(timeoutMs));
    void bound.promise.then(() => this.end(1, 'error', { msg: `${role} stop forced`, reason: 'timeout', signal }));
    const summary: Record<string, unknown> = {};
    try {
      for (const step of steps) {
        if (this.finished) return;
        Object.assign(summary, await step.run({ releaseAt: release.promise }));
      }
    } catch (err) {
      this.end(1, 'error', { msg: `${role} stop failed`, signal, err: err instanceof Error ? err.message : String(err), ...summary });
      return;
    } finally {
      bound.cancel();
      release.cancel();
    }
    this.end(0, 'info', { msg: `${role} stopped`, signal, ...summary });
  }

  /** Logs the last line (with the time the stop took) and exits, once. */
  private end(code: number, level: 'info' | 'error', fields: Record<string, unknown>): void {
    if (this.finished) return;
    this.finished = true;
    this.opts.log(level, { ...fields, duration_ms: this.clock.now() - (this.startedAt ?? this.clock.now()) });
    this.opts.exit(code);
  }
}
