/** Runs one delivered job id; the runner. */
export type JobConsumerFn = (jobId: string) => Promise<void>;

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
