import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../config/index.js';
import type { ProcessRole } from '../../core/index.js';
import { inTransaction, type Tx } from '../database/index.js';
import { outages } from '../health/outages.js';
import { ProcessLifecycle } from '../lifecycle/index.js';
import type { Jobs, JobRecord, NewJob } from './job.types.js';
import { consumesQueues, QUEUE_ROLE } from './job-consumer.js';

/**
 * The timer of a periodic scheduler: a pass at start and every `everyMs`, a pass still running
 * joined rather than doubled, and no pass once the process stops (the stop waits for the one running).
 * A timed pass that fails warns once per failing streak, and not at all when an outage accounts for
 * it (the outage log says that once); the next tick goes on.
 */
export class PeriodicPass {
  private readonly logger = new Logger('PeriodicPass');
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private stopped = false;
  private failing = false;

  constructor(
    private readonly pass: (now: Date) => Promise<number>,
    private readonly name = 'periodic pass',
  ) {}

  start(everyMs: number, lifecycle: ProcessLifecycle): void {
    this.timer = setInterval(() => void this.tick(), everyMs);
    this.timer.unref();
    lifecycle.onStop(() => this.stop());
    void this.tick();
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

  /** A timed pass: its failure is logged here, since nobody awaits it. */
  private async tick(): Promise<void> {
    try {
      await this.run();
      this.failing = false;
    } catch (err) {
      const first = !this.failing;
      this.failing = true;
      if (await outages.warnsFor(err, first)) this.logger.warn({ msg: 'periodic pass failed; the next tick goes on', pass: this.name, err: String(err) });
    }
  }
}

/** A periodic pass a context asks for: `pass` answers how many things it did. */
export interface PeriodicPassSpec {
  /** Unique: two passes of one name stop the boot. */
  name: string;
  everyMs: number;
  pass(now: Date): Promise<number>;
}

/**
 * The periodic passes of every context, run where queues are consumed (the workers, or the API when
 * it runs jobs itself) and stopped with the process. A context registers its pass when it is built
 * and keeps the answer to run a pass on demand (`run`: joined with one already running).
 */
@Injectable()
export class PeriodicPasses implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly passes = new Map<string, { pass: PeriodicPass; everyMs: number }>();

  constructor(
    @Inject(QUEUE_ROLE) private readonly role: ProcessRole,
    private readonly config: AppConfig,
    private readonly lifecycle: ProcessLifecycle,
  ) {}

  register(spec: PeriodicPassSpec): PeriodicPass {
    if (this.passes.has(spec.name)) throw new Error(`two periodic passes are named "${spec.name}"`);
    const pass = new PeriodicPass((now) => spec.pass(now), spec.name);
    this.passes.set(spec.name, { pass, everyMs: spec.everyMs });
    return pass;
  }

  onApplicationBootstrap(): void {
    if (!consumesQueues(this.role, this.config)) return;
    for (const { pass, everyMs } of this.passes.values()) pass.start(everyMs, this.lifecycle);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([...this.passes.values()].map(({ pass }) => pass.stop()));
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
