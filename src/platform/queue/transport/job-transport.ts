/**
 * Runs one delivered job id; the runner. It rejects only when the job's row could not be read or
 * written (the database is away): the transport then delivers the id again after `redeliveryDelayMs`.
 */
export type JobConsumerFn = (jobId: string) => Promise<void>;

/** Deliveries of one message before the transport gives up on it (the periodic sweep still re-sends its row). */
export const MAX_DELIVERIES = 40;
const FIRST_REDELIVERY_MS = 500;
const MAX_REDELIVERY_MS = 5_000;

/**
 * How long a message whose run rejected waits before its next delivery: 0.5 s after the first,
 * doubling up to 5 s. With MAX_DELIVERIES that covers about three minutes of database outage, and
 * a job waits at most 5 s after the database is back.
 */
export function redeliveryDelayMs(failedDeliveries: number): number {
  const n = Math.max(1, Math.floor(failedDeliveries));
  return Math.min(MAX_REDELIVERY_MS, FIRST_REDELIVERY_MS * 2 ** Math.min(n - 1, 16));
}

/** A message this process held but never started (an in-process queue loses them when it closes). */
export interface DroppedMessage {
  jobId: string;
  key: string;
}

/** How a close went: runs that finished, runs let go at `letGo`, and messages dropped unstarted. */
export interface CloseReport {
  finished: number;
  abandoned: number;
  dropped: DroppedMessage[];
}

/** "Never let go": a close that waits for every running job, as long as it takes. */
export const NO_DEADLINE: Promise<void> = new Promise<void>(() => undefined);

/**
 * Carries job ids from producers to consumers. Delivery is at-least-once and adding an id that is
 * already queued or running is a no-op, so re-sending open rows is always safe.
 */
export abstract class JobTransport {
  /** `key` (default: the id) is what makes two adds the same message. */
  abstract add(jobId: string, key?: string): Promise<void>;
  /** Adds many ids (keys = ids) at once; a transport with a cheaper batch overrides it. */
  async addMany(jobIds: readonly string[]): Promise<void> {
    for (const id of jobIds) await this.add(id);
  }
  /** Starts delivering ids to `run` in this process. Called only where jobs are consumed. */
  abstract consume(run: JobConsumerFn): void;
  /**
   * Stops taking messages here at once and waits for the running ones; when `letGo` settles first,
   * stops waiting: the messages of the runs still going end here (their owner has already put
   * their rows back, so nothing holds them), and the process may exit under them.
   */
  abstract close(letGo?: Promise<unknown>): Promise<CloseReport>;
  /**
   * Calls `listener` when the transport's connection comes back after it was lost (its messages
   * may be gone with it). A transport in this process never loses one: the default does nothing.
   */
  onReconnect(_listener: () => void): void {}
}

/** Waits for `runs` or `letGo`, whichever settles first; answers whether the runs all ended. */
export async function runsEndedBefore(runs: Iterable<Promise<unknown>>, letGo: Promise<unknown>): Promise<boolean> {
  const ended = Promise.allSettled([...runs]).then(() => true);
  return Promise.race([ended, letGo.then(() => false, () => false)]);
}
