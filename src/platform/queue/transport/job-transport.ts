/** Runs one delivered job id; the runner. */
export type JobConsumerFn = (jobId: string) => Promise<void>;

/**
 * Carries job ids from producers to consumers. Delivery is at-least-once and adding an id that is
 * already queued or running is a no-op, so re-sending open rows is always safe.
 */
export abstract class JobTransport {
  /** `key` (default: the id) is what makes two adds the same message. */
  abstract add(jobId: string, key?: string): Promise<void>;
  /** Starts delivering ids to `run` in this process. Called only where jobs are consumed. */
  abstract consume(run: JobConsumerFn): void;
  /** Stops taking new jobs and waits for the running ones. */
  abstract close(): Promise<void>;
}
