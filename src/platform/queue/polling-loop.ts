import type { LoggerService } from '@nestjs/common';
import { outages } from '../health/outages.js';

export interface PollingLoopOptions {
  /** What a pass does, for the log line when it fails ("outbox dispatch", "webhook claim"). */
  what: string;
  logger: Pick<LoggerService, 'warn'>;
  /** How long to idle after a pass that found nothing more, unless woken sooner. */
  pollMs: number;
  /** One pass. Answers true when more may be due at once: the loop then looks again without idling. */
  pass: () => Promise<boolean>;
}

/**
 * A loop that claims work from a table: it runs a pass, looks again at once while passes answer
 * "more", and otherwise idles for `pollMs` or until `wake()`. A wake that arrives while a pass runs
 * is kept, so the next idle ends at once (work recorded during a claim is not left for a whole
 * poll). A failing pass does not end the loop: an outage is one line from the outage log (an error
 * that does not look like one is checked with the probes first), anything else warns once per
 * failing streak. `stop()` ends it after the running pass.
 */
export class PollingLoop {
  private stopped = false;
  private woken = false;
  private endIdle?: () => void;
  private running?: Promise<void>;
  private failing = false;

  constructor(private readonly opts: PollingLoopOptions) {}

  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Ends the current idle, or the next one if a pass is running. */
  wake(): void {
    this.woken = true;
    this.endIdle?.();
  }

  /** No pass starts after this; resolves once the running one has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let again = false;
      try {
        again = await this.opts.pass();
        this.failing = false;
      } catch (err) {
        const first = !this.failing;
        this.failing = true;
        if (await outages.warnsFor(err, first)) this.opts.logger.warn({ msg: `${this.opts.what} failed`, err: String(err) });
      }
      if (!again && !this.stopped) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.endIdle = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, this.opts.pollMs).unref();
      if (this.woken) done();
      else this.endIdle = done;
    });
  }
}
