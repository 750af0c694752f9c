import { Injectable, Logger } from '@nestjs/common';

/** What a part of the process does when a stop begins: it answers the counts the final log line shows. */
export type StopListener = (releaseAt: Promise<void>) => Promise<Record<string, unknown> | void>;

/** A promise that never settles: "no deadline" for a close that was not asked for by a stop signal. */
const NEVER = new Promise<void>(() => undefined);

/**
 * The moment a stop begins, told to whoever must act on it without waiting for Nest's shutdown
 * hooks, which run one after the other: the socket gateway (close every socket with 1001), the job
 * consumers (stop taking jobs now; drain while HTTP drains). Each listener gets `releaseAt`, when
 * what still runs must be let go; `stopped()` answers once every listener is done, with their counts.
 */
@Injectable()
export class ProcessLifecycle {
  private readonly logger = new Logger('Lifecycle');
  private readonly listeners: StopListener[] = [];
  private running?: Promise<Record<string, unknown>>;

  /** Registers `listener` (at boot: the stop, when it comes, runs every listener registered by then). */
  onStop(listener: StopListener): void {
    this.listeners.push(listener);
  }

  get stopping(): boolean {
    return this.running !== undefined;
  }

  /** Starts the stop (once): every listener runs now, concurrently. */
  begin(releaseAt: Promise<void>): void {
    this.running ??= this.runListeners(releaseAt);
  }

  /**
   * Waits for the listeners (a shutdown hook calls this). A close that no stop signal began (a test
   * closing its app) begins one without a deadline: running work is waited for, as before.
   */
  stopped(): Promise<Record<string, unknown>> {
    this.begin(NEVER);
    return this.running!;
  }

  private async runListeners(releaseAt: Promise<void>): Promise<Record<string, unknown>> {
    const reports = await Promise.all(
      this.listeners.map((listener) =>
        listener(releaseAt).catch((err: unknown) => {
          this.logger.error({ msg: 'stop listener failed', err: err instanceof Error ? err.message : String(err) });
          return undefined;
        }),
      ),
    );
    return Object.assign({}, ...reports.map((r) => r ?? {})) as Record<string, unknown>;
  }
}
