import { Logger } from '@nestjs/common';
import { JobTransport, NO_DEADLINE, runsEndedBefore, type CloseReport, type JobConsumerFn } from './job-transport.js';

/**
 * The queue without Redis: a FIFO in this process with bounded concurrency. Ids queued before a
 * consumer starts wait for it. Lost on exit by design: the rows stay open and the recovery sweep
 * re-sends them at the next start.
 */
export class InProcessTransport extends JobTransport {
  private readonly logger = new Logger('Jobs');
  private readonly waiting: Array<{ jobId: string; key: string }> = [];
  private readonly known = new Set<string>();
  private readonly active = new Set<Promise<void>>();
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
        .catch((err: unknown) => this.logger.error({ msg: 'job run failed', job_id: jobId, err: String(err) }))
        .finally(() => {
          this.active.delete(task);
          this.known.delete(key);
          this.pump();
        });
      this.active.add(task);
    }
  }
}
