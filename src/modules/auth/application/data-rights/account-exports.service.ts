import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId, type Caller } from '../../../../core/index.js';
import { inTransaction } from '../../../../platform/database/index.js';
import { Jobs } from '../../../../platform/queue/index.js';
import { MediaUrls } from '../../../../platform/storage/index.js';
import { exportRetryAfterSeconds, exportStatusAt, EXPORTS_PER_DAY, type ExportStatus } from '../../domain/data-rights.js';
import { DataRightsRepository, type AccountExport } from '../../infrastructure/data-rights.repository.js';
import { BUILD_ACCOUNT_EXPORT_JOB } from './job-types.js';

/** An export as its owner sees it: a download URL only while it is ready. */
export interface ExportView {
  export: AccountExport;
  status: ExportStatus;
  downloadUrl: string | null;
}

const DAY_MS = 24 * 3600 * 1000;

/** Starting an export of the caller's workspace and reading it back. */
@Injectable()
export class AccountExportsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: DataRightsRepository,
    private readonly jobs: Jobs,
    private readonly urls: MediaUrls,
  ) {}

  /** A pending export and its job; past the daily number, 429 with the seconds to wait. */
  async request(caller: Caller, now = new Date()): Promise<ExportView> {
    const { created, job } = await inTransaction(this.ds, async (tx) => {
      const retryAfter = exportRetryAfterSeconds(await this.repo.recentExportStarts(tx, caller.workspaceId, new Date(now.getTime() - DAY_MS)), now);
      if (retryAfter > 0) {
        throw new AppError('rate_limited', `A workspace can start ${EXPORTS_PER_DAY} exports a day; try again later.`, { limit: EXPORTS_PER_DAY, retry_after: retryAfter });
      }
      const id = newId('exp');
      const job = await this.jobs.create(tx, { workspaceId: caller.workspaceId, jobType: BUILD_ACCOUNT_EXPORT_JOB, payload: { exportId: id } });
      return { created: await this.repo.insertExport(tx, { id, workspaceId: caller.workspaceId, userId: caller.userId, jobId: job.id }), job };
    });
    await this.jobs.enqueue(job);
    return { export: created, status: created.status, downloadUrl: null };
  }

  /** One export of the caller's workspace (another workspace's: 404); past its life, 410 `export_expired`. */
  async get(caller: Caller, id: string, now = new Date()): Promise<ExportView> {
    const found = await this.repo.findExport(caller.workspaceId, id);
    if (!found) throw AppError.notFound('Export');
    const status = exportStatusAt(found.status, found.expiresAt, now);
    if (status === 'expired') throw new AppError('export_expired', 'This export has expired; its download is gone. Start a new export.');
    const remaining = found.expiresAt ? Math.floor((found.expiresAt.getTime() - now.getTime()) / 1000) : 0;
    const downloadUrl = status === 'ready' && found.archiveKey && remaining > 0 ? this.urls.sign(found.archiveKey, remaining) : null;
    return { export: found, status, downloadUrl };
  }
}
