import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import type { ProcessRole } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { consumesQueues, PollingLoop, QUEUE_ROLE } from '../../../platform/queue/index.js';
import { ClicksRepository } from '../infrastructure/clicks.repository.js';
import { ClickStore } from './ports/click-store.js';

/** A batch claimed by a flush is taken over by another after this long (its worker died). */
export const BATCH_LEASE_MS = 60_000;
/** Applied batch ids are remembered this long: a batch is retried within a lease, never a day later. */
const REMEMBER_BATCHES_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Moves counted clicks into PostgreSQL every MONETIZATION_CLICK_FLUSH_MS, on the processes that
 * run background work (workers; the API itself without Redis or with RUN_JOBS_IN_API). Each batch
 * is written in one transaction and removed from the store only after it committed; a failed
 * write leaves it for the next pass. At a stop the loop ends after one last flush, so clicks
 * counted in memory (no Redis) are not left behind.
 */
@Injectable()
export class ClickFlushLoop implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Monetization');
  private readonly loop: PollingLoop;
  private lastPrune = 0;

  constructor(
    @Inject(QUEUE_ROLE) private readonly role: ProcessRole,
    private readonly config: AppConfig,
    @InjectDataSource() private readonly ds: DataSource,
    private readonly store: ClickStore,
    private readonly clicks: ClicksRepository,
  ) {
    this.loop = new PollingLoop({ what: 'click flush', logger: this.logger, pollMs: config.monetization.clickFlushMs, pass: () => this.pass() });
  }

  get flushes(): boolean {
    return consumesQueues(this.role, this.config);
  }

  onApplicationBootstrap(): void {
    if (this.flushes) this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.flushes) return;
    await this.loop.stop();
    await this.flush().catch((err: unknown) => this.logger.warn({ msg: 'last click flush failed; the clicks stay in the store', err: String(err) }));
  }

  /** One pass; never asks to run again at once (the next pass comes after the interval). */
  private async pass(): Promise<boolean> {
    await this.flush();
    return false;
  }

  /** Writes every batch due; answers how many were applied now. */
  async flush(): Promise<number> {
    const batches = await this.store.take(BATCH_LEASE_MS);
    let applied = 0;
    for (const [i, batch] of batches.entries()) {
      try {
        if (await inTransaction(this.ds, (tx) => this.clicks.apply(tx, batch.id, batch.counts))) applied += 1;
      } catch (err) {
        // This batch and the ones not reached go back for the next pass (a release that fails too
        // leaves them claimed: they come back when the claim lapses).
        await Promise.all(batches.slice(i).map((b) => this.store.release(b.id).catch(() => undefined)));
        throw err;
      }
      await this.store.finished(batch.id);
    }
    await this.prune();
    return applied;
  }

  private async prune(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.clicks.prune(this.ds.manager, new Date(now - REMEMBER_BATCHES_MS));
  }
}
