import { Injectable, Logger } from '@nestjs/common';
import type { ComposedStatement, Tx } from '../database/index.js';
import { jobInsertSql, JobStore } from './job-store.js';
import type { JobType } from './job-types.js';
import { Jobs, type JobRecord, type JobSettlement, type NewJob } from './job.types.js';
import { JobTransport } from './transport/job-transport.js';
import { outages } from '../health/outages.js';

/** The job port: rows through the store, messages through the configured transport. */
@Injectable()
export class JobsService extends Jobs {
  private readonly logger = new Logger('Jobs');

  constructor(
    private readonly store: JobStore,
    private readonly transport: JobTransport,
  ) {
    super();
  }

  async create<T extends JobType>(tx: Tx, job: NewJob<T>): Promise<JobRecord<T>> {
    const record = this.prepare(job);
    await this.store.insert(tx, record);
    return record;
  }

  addInsert(statement: ComposedStatement, job: JobRecord): void {
    statement.with('new_job', (p) => jobInsertSql(p, job));
  }

  async enqueue(job: JobRecord): Promise<void> {
    try {
      await this.transport.add(job.id);
    } catch (err) {
      // The row is committed and open: the consumers' recovery sweep sends it again.
      if (!(await outages.covers(err))) this.logger.warn({ msg: 'job not enqueued; recovery will send it', job_id: job.id, err: String(err) });
    }
  }

  settle(tx: Tx, workspaceId: string, id: string, settlement: JobSettlement): Promise<boolean> {
    return this.store.settle(tx, workspaceId, id, settlement);
  }

  cancel(tx: Tx, workspaceId: string, id: string): Promise<boolean> {
    return this.store.cancel(tx, workspaceId, id);
  }

  get(workspaceId: string, id: string): Promise<JobRecord | null> {
    return this.store.findInWorkspace(workspaceId, id);
  }

  async getMany(workspaceId: string, ids: readonly string[], tx?: Tx): Promise<Map<string, JobRecord>> {
    const jobs = await this.store.findManyInWorkspace(workspaceId, [...new Set(ids)], tx);
    return new Map(jobs.map((j) => [j.id, j]));
  }
}
