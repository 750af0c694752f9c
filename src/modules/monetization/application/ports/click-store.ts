import type { ClickCounts } from '../../domain/clicks.js';

/** Counts moved aside together, written to PostgreSQL as one unit under their id. */
export interface ClickBatch {
  id: string;
  counts: ClickCounts;
}

/**
 * Where clicks are counted between flushes: Redis when configured (shared by every process),
 * else this process's memory (the embedded mode, one process).
 */
export abstract class ClickStore {
  /** Counts one click of `linkId` on `day` (UTC, YYYY-MM-DD); resolves once the store holds it. */
  abstract add(linkId: string, day: string): Promise<void>;
  /**
   * Moves everything counted so far aside as a new batch, atomically (clicks arriving meanwhile
   * start the next one), and answers it with every batch not yet finished whose claim lapsed (a
   * failed write, a worker that died mid-flush). A batch answered here is claimed for `leaseMs`.
   */
  abstract take(leaseMs: number): Promise<ClickBatch[]>;
  /** The batch is in PostgreSQL: forget it. */
  abstract finished(batchId: string): Promise<void>;
  /** The batch could not be written: keep it for the next pass, whoever runs it. */
  abstract release(batchId: string): Promise<void>;
}
