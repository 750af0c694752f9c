import { Logger } from '@nestjs/common';
import Bull from 'bull';
import type { JobRecoverySettings } from '../../../config/index.js';
import { isOutageError, outages, withinTime } from '../../health/outages.js';
import { reconnectDelay } from '../../redis/redis.module.js';
import { JobTransport, MAX_DELIVERIES, NO_DEADLINE, redeliveryDelayMs, runsEndedBefore, type CloseReport, type JobConsumerFn } from './job-transport.js';

/** An add waits no longer than this: the row is committed, and the recovery sweep re-sends it. */
export const ADD_TIMEOUT_MS = 1_000;

export const BULL_QUEUE_NAME = 'jobs';
const REDELIVERY = 'redelivery';

/** The ids one `addBulk` carries: one Redis round trip each. */
const ADD_BATCH = 500;

/**
 * The queue's options. A run that rejects (its row could not be read or written) is delivered
 * again with `redeliveryDelayMs`, up to MAX_DELIVERIES, instead of being dropped. A dead worker's
 * lock lapses after `lockMs` (renewed every half of it), and every live worker checks for such
 * jobs every `stalledCheckMs`, so they run again within about lockMs + stalledCheckMs.
 */
export function bullQueueOptions(prefix: string, recovery: Pick<JobRecoverySettings, 'lockMs' | 'stalledCheckMs'>): Bull.QueueOptions {
  return {
    prefix,
    // Reconnects as soon as the request path's connections do (Bull's default waits up to 2 s).
    redis: { retryStrategy: reconnectDelay },
    defaultJobOptions: { attempts: MAX_DELIVERIES, backoff: { type: REDELIVERY }, removeOnComplete: true, removeOnFail: true },
    settings: {
      lockDuration: recovery.lockMs,
      lockRenewTime: Math.floor(recovery.lockMs / 2),
      stalledInterval: recovery.stalledCheckMs,
      maxStalledCount: 5,
      // A consumer whose connection failed takes the queue again 1 s after (Bull's default: 5 s).
      retryProcessDelay: 1_000,
      backoffStrategies: { [REDELIVERY]: (attemptsMade: number) => redeliveryDelayMs(attemptsMade) },
    },
  };
}

interface Message {
  jobId: string;
}

/** A run Bull is waiting on; `letGo` ends Bull's wait without waiting for the run. */
interface Tracked {
  done: Promise<void>;
  letGo(): void;
}

/**
 * The queue with Redis. The Bull job id is the row id, so adding an id that Bull still holds is a
 * no-op; finished Bull jobs are removed so that a row still open can always be sent again. Bull's
 * stalled-job check re-delivers the jobs of a worker that died (see `bullQueueOptions`).
 */
export class BullTransport extends JobTransport {
  private readonly logger = new Logger('Jobs');
  private readonly queue: Bull.Queue<Message>;
  private readonly active = new Set<Tracked>();

  constructor(
    redisUrl: string,
    prefix: string,
    private readonly concurrency: number,
    recovery: Pick<JobRecoverySettings, 'lockMs' | 'stalledCheckMs'>,
    name = BULL_QUEUE_NAME,
  ) {
    super();
    this.queue = new Bull<Message>(name, redisUrl, bullQueueOptions(prefix, recovery));
    // Bull's connections keep their own retries (a worker resumes once Redis is back); an outage
    // is one warning line, not one error line per reconnection attempt.
    this.queue.on('error', (err) => {
      if (isOutageError(err)) outages.report(err, 'redis');
      else this.logger.error({ msg: 'job queue error', err: err.message });
    });
  }

  /**
   * Fails at once while the queue's connection is down, and within ADD_TIMEOUT_MS otherwise,
   * instead of waiting in Bull's offline queue for the reconnection.
   */
  async add(jobId: string, key: string = jobId): Promise<void> {
    if (this.queue.client.status !== 'ready') throw new Error(`Connection is closed. (job queue ${this.queue.client.status})`);
    await withinTime(this.queue.add({ jobId }, { jobId: key }), ADD_TIMEOUT_MS);
  }

  /** Calls `listener` each time the queue's connection is ready again after it was lost. */
  override onReconnect(listener: () => void): void {
    let lost = false;
    this.queue.client.on('close', () => {
      lost = true;
    });
    this.queue.client.on('ready', () => {
      if (!lost) return;
      lost = false;
      listener();
    });
  }

  /** One round trip per ADD_BATCH ids; ids Bull still holds are skipped by its add script. */
  override async addMany(jobIds: readonly string[]): Promise<void> {
    for (let i = 0; i < jobIds.length; i += ADD_BATCH) {
      await this.queue.addBulk(jobIds.slice(i, i + ADD_BATCH).map((jobId) => ({ data: { jobId }, opts: { jobId } })));
    }
  }

  consume(run: JobConsumerFn): void {
    this.queue.process(this.concurrency, (job) => this.track(run(job.data.jobId))).catch((err: unknown) => {
      this.logger.error({ msg: 'job consumer stopped', err: String(err) });
    });
  }

  /**
   * Pauses this process's consumer at once (other workers go on taking the queue), waits for the
   * running jobs until `letGo`, then ends the messages of those still running: Bull completes and
   * removes them, so the next re-send of their rows is queued afresh instead of being taken for a
   * message still held (a held message only comes back after Bull's stall check, 30 s or more).
   */
  async close(letGo: Promise<unknown> = NO_DEADLINE): Promise<CloseReport> {
    await this.queue.pause(true, true).catch((err: unknown) => this.logger.warn({ msg: 'job queue not paused', err: String(err) }));
    const running = this.active.size;
    let abandoned = 0;
    if (!(await runsEndedBefore([...this.active].map((t) => t.done), letGo))) {
      abandoned = this.active.size;
      for (const tracked of [...this.active]) tracked.letGo();
    }
    await this.queue.close();
    return { finished: running - abandoned, abandoned, dropped: [] };
  }

  /** The Bull queue itself, for the operators' dashboard to read; nothing else goes around the transport. */
  get bullQueue(): Bull.Queue {
    return this.queue;
  }

  private track(run: Promise<void>): Promise<void> {
    let letGo!: () => void;
    const done = new Promise<void>((resolve, reject) => {
      letGo = resolve;
      run.then(resolve, reject);
    });
    const tracked: Tracked = { done, letGo };
    this.active.add(tracked);
    return done.finally(() => this.active.delete(tracked));
  }
}

/** The Bull queue behind `transport`, or null when the queue runs in process (no Redis). */
export function bullQueueOf(transport: JobTransport): Bull.Queue | null {
  return transport instanceof BullTransport ? transport.bullQueue : null;
}
