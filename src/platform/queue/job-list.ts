import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { offsetOf, type Page, type PageRequest } from '../../core/index.js';
import { fromJobRow, type JobRow } from './job-store.js';
import type { JobRecord, JobStatus } from './job.types.js';

/** What `GET /jobs` narrows by; every field optional, all given ones must hold. */
export interface JobFilter {
  statuses?: readonly JobStatus[];
  jobType?: string;
  characterId?: string;
}

/** A page of one workspace's jobs, newest first: read by the indexes of migration 1733260000000. */
@Injectable()
export class JobList {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async page(workspaceId: string, filter: JobFilter, req: PageRequest): Promise<Page<JobRecord>> {
    const where = ['workspace_id = $1'];
    const params: unknown[] = [workspaceId];
    const add = (condition: (at: string) => string, value: unknown) => {
      params.push(value);
      where.push(condition(`$${params.length}`));
    };
    if (filter.statuses) add((at) => `status = ANY(${at})`, [...filter.statuses]);
    if (filter.jobType) add((at) => `job_type = ${at}`, filter.jobType);
    if (filter.characterId) add((at) => `character_id = ${at}`, filter.characterId);
    const clause = where.join(' AND ');
    const rows: Array<JobRow & { total: number }> = await this.ds.query(
      `SELECT *, count(*) OVER ()::int AS total FROM jobs WHERE ${clause}
        ORDER BY created_at DESC, id DESC LIMIT ${req.pageSize} OFFSET ${offsetOf(req)}`,
      params,
    );
    const total = rows[0]?.total ?? (offsetOf(req) === 0 ? 0 : await this.count(clause, params));
    return { items: rows.map(fromJobRow), page: req.page, pageSize: req.pageSize, total };
  }

  /** A page past the end has no row to carry the window count. */
  private async count(clause: string, params: unknown[]): Promise<number> {
    const rows: Array<{ n: number }> = await this.ds.query(`SELECT count(*)::int AS n FROM jobs WHERE ${clause}`, params);
    return rows[0]?.n ?? 0;
  }
}
