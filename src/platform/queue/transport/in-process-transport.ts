import { Logger } from '@nestjs/common';
import { JobTransport, MAX_DELIVERIES, NO_DEADLINE, redeliveryDelayMs, runsEndedBefore, type CloseReport, type JobConsumerFn } from './job-transport.js';

/**
 * The queue without Redis: a FIFO in this process with bounded concurrency. Ids queued before a
 * consumer starts wait for it. Lost on exit by design: the rows stay open and the recovery sweep
 * re-sends them at the next start. A run that rejects (the database was away) is delivered again
 * after `redeliveryDelayMs`, as Bull does.
 */
export class InProcessTransport extends JobTransport {
  private readonly logger = new Logger('Jobs');
  private readonly waiting: Array<{ jobId: string; key: string }> = [];
  private readonly known = new Set<string>();
  private readonly active = new Set<Promise<void>>();
  /** Failed deliveries in a row, by key, and the timers of the deliveries they wait for. */
  private readonly failures = new Map<string, number>();
  private readonly redeliveries = new Set<NodeJS.Timeout>();
  private run?: JobConsumerFn;
  private closed = false;

  constructor(private readonly concurrency: number) {
    super();
  }

  async add(jobId: string, key: string = jobId): Promise<void> {
    if (this.closed || this.known.has(key)) return;
    this.known.add(key);
    this.waiting.push({ jobId, key });
    this.pump();
  }

  consume(run: JobConsumerFn): void {
    this.run = run;
    this.pump();
  }

  async close(letGo: Promise<unknown> = NO_DEADLINE): Promise<CloseReport> {
    this.closed = true;
    for (const timer of this.redeliveries) clearTimeout(timer);
    this.redeliveries.clear();
    const dropped = this.waiting.splice(0);
    for (const { key } of dropped) this.known.delete(key);
    const running = this.active.size;
    const abandoned = (await runsEndedBefore(this.active, letGo)) ? 0 : this.active.size;
    return { finished: running - abandoned, abandoned, dropped };
  }

  /** How many jobs are waiting or running; tests wait for it to reach 0. */
  get size(): number {
    return this.known.size;
  }

  private pump(): void {
    const run = this.run;
    if (!run) return;
    while (!this.closed && this.active.size < this.concurrency && this.waiting.length > 0) {
      const { jobId, key } = this.waiting.shift()!;
      const task = run(jobId)
        .then(
          () => void this.failures.delete(key),
          (err: unknown) => this.redeliver(jobId, key, err),
        )
        .finally(() => {
          this.active.delete(task);
          this.known.delete(key);
          this.pump();
        });
      this.active.add(task);
    }
  }

  private redeliver(jobId: string, key: string, err: unknown): void {
    const failed = (this.failures.get(key) ?? 0) + 1;
    if (failed >= MAX_DELIVERIES) {
      this.failures.delete(key);
      this.logger.error({ msg: 'job run failed; left to the recovery sweep', job_id: jobId, deliveries: failed, err: String(err) });
      return;
    }
    this.failures.set(key, failed);
    const delayMs = redeliveryDelayMs(failed);
    this.logger.warn({ msg: 'job run failed; delivered again', job_id: jobId, delay_ms: delayMs, err: String(err) });
    const timer = setTimeout(() => {
      this.redeliveries.delete(timer);
      void this.add(jobId, key);
    }, delayMs);
    timer.unref();
    this.redeliveries.add(timer);
  }
}
