import type { DataSource } from 'typeorm';
import { inTransaction, type Tx } from '../database/index.js';
import type { ProcessLifecycle } from '../lifecycle/index.js';
import type { Jobs, JobRecord, NewJob } from './job.types.js';

/**
 * The timer of a periodic scheduler: a pass at start and every `everyMs`, a pass still running
 * joined rather than doubled, and no pass once the process stops (the stop waits for the one running).
 */
export class PeriodicPass {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private stopped = false;

  constructor(private readonly pass: (now: Date) => Promise<number>) {}

  start(everyMs: number, lifecycle: ProcessLifecycle): void {
    this.timer = setInterval(() => void this.run(), everyMs);
    this.timer.unref();
    lifecycle.onStop(() => this.stop());
    void this.run();
  }

  async stop(): Promise<Record<string, unknown>> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    return {};
  }

  /** One pass; answers what it did (the jobs it created). */
  run(now = new Date()): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    this.running ??= this.pass(now).finally(() => (this.running = undefined));
    return this.running;
  }
}

/**
 * Creates the jobs of what `claim` claimed in the claim's own transaction, then sends them: however
 * many processes claim at once, each due thing gets one job, and a claim never commits without its job.
 */
export async function createClaimedJobs(ds: DataSource, jobs: Jobs, claim: (tx: Tx) => Promise<NewJob[]>): Promise<number> {
  const created = await inTransaction(ds, async (tx) => {
    const records: JobRecord[] = [];
    for (const job of await claim(tx)) records.push(await jobs.create(tx, job));
    return records;
  });
  for (const job of created) await jobs.enqueue(job);
  return created.length;
}
