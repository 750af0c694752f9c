import { Logger } from '@nestjs/common';
import Bull from 'bull';
import { JobTransport, type JobConsumerFn } from './job-transport.js';

export const BULL_QUEUE_NAME = 'jobs';

interface Message {
  jobId: string;
}

/**
 * The queue with Redis. The Bull job id is the row id, so adding an id that Bull still holds is a
 * no-op; finished Bull jobs are removed so that a row still open can always be sent again. Bull's
 * stalled-job check re-delivers the jobs of a worker that died.
 */
export class BullTransport extends JobTransport {
  private readonly logger = new Logger('Jobs');
  private readonly queue: Bull.Queue<Message>;

  constructor(redisUrl: string, prefix: string, private readonly concurrency: number, name = BULL_QUEUE_NAME) {
    super();
    this.queue = new Bull<Message>(name, redisUrl, {
      prefix,
      defaultJobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: true },
      settings: { maxStalledCount: 5 },
    });
    this.queue.on('error', (err) => this.logger.error({ msg: 'job queue error', err: err.message }));
  }

  async add(jobId: string, key: string = jobId): Promise<void> {
    await this.queue.add({ jobId }, { jobId: key });
  }

  consume(run: JobConsumerFn): void {
    this.queue.process(this.concurrency, (job) => run(job.data.jobId)).catch((err: unknown) => {
      this.logger.error({ msg: 'job consumer stopped', err: String(err) });
    });
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
