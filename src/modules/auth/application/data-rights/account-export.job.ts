import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { inTransaction, type Tx } from '../../../../platform/database/index.js';
import { DataContributors } from '../../../../platform/data-rights/index.js';
import { JobHandler, Jobs, OnJobFailed, type JobContext, type JobRecord } from '../../../../platform/queue/index.js';
import { Outbox } from '../../../../platform/outbox/index.js';
import { Storage } from '../../../../platform/storage/index.js';
import { EXPORT_TTL_MS } from '../../domain/data-rights.js';
import { DataRightsRepository } from '../../infrastructure/data-rights.repository.js';
import { BUILD_ACCOUNT_EXPORT_JOB } from './job-types.js';
import { zipArchive, type ArchiveEntry } from './zip-archive.js';

/** Where an export's archive is stored. */
export function exportArchiveKey(exportId: string): string {
  return `exports/${exportId}/archive.zip`;
}

/**
 * Builds an export: one JSON file per context that holds rows of the workspace, its media files
 * under `media/<storage key>`, and a manifest; stores the archive and marks the export ready in the
 * transaction that records `account.export_ready`. A re-delivered job rebuilds the same key and
 * finds the export no longer pending, so the mail goes once.
 */
@Injectable()
export class AccountExportJob {
  private readonly logger = new Logger('DataRights');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: DataRightsRepository,
    private readonly contributors: DataContributors,
    private readonly storage: Storage,
    private readonly outbox: Outbox,
    private readonly jobs: Jobs,
  ) {}

  @JobHandler(BUILD_ACCOUNT_EXPORT_JOB)
  async build(ctx: JobContext<typeof BUILD_ACCOUNT_EXPORT_JOB>): Promise<Record<string, unknown>> {
    const { workspaceId } = ctx.job;
    const exportId = ctx.job.payload.exportId;
    const found = await this.repo.findExport(workspaceId, exportId);
    if (!found || found.status !== 'pending') return { export_id: exportId };
    const { entries, contexts, media, missing } = await this.collect(workspaceId, ctx);
    const now = new Date();
    entries.push(json('manifest.json', { export_id: exportId, workspace_id: workspaceId, created_at: now.toISOString(), contexts, media_files: media, missing_media_files: missing }));
    const archive = await zipArchive(entries, now);
    const key = exportArchiveKey(exportId);
    await this.storage.put(key, archive, 'application/zip');
    const expiresAt = new Date(now.getTime() + EXPORT_TTL_MS);
    const result = { export_id: exportId, size_bytes: archive.length };
    // The export turns ready with its mail and its job's end, in one transaction.
    await inTransaction(this.ds, async (tx) => {
      if (!(await this.repo.markExportReady(tx, workspaceId, exportId, { archiveKey: key, sizeBytes: archive.length, readyAt: now, expiresAt }))) return;
      await this.jobs.settle(tx, workspaceId, ctx.job.id, { status: 'completed', result });
      const email = await this.repo.findEmail(found.userId, tx);
      if (email) {
        await this.outbox.record(tx, { type: 'account.export_ready', workspaceId, payload: { userId: found.userId, email, exportId, expiresAt: expiresAt.toISOString() } });
      }
    });
    return result;
  }

  @OnJobFailed(BUILD_ACCOUNT_EXPORT_JOB)
  async failed(tx: Tx, job: JobRecord<typeof BUILD_ACCOUNT_EXPORT_JOB>): Promise<void> {
    await this.repo.markExportFailed(tx, job.workspaceId, job.payload.exportId);
  }

  private async collect(workspaceId: string, ctx: JobContext): Promise<{ entries: ArchiveEntry[]; contexts: string[]; media: number; missing: number }> {
    const entries: ArchiveEntry[] = [];
    const contexts: string[] = [];
    const keys = new Set<string>();
    const all = this.contributors.all();
    for (const [i, contributor] of all.entries()) {
      const part = await contributor.export(workspaceId);
      if (Object.keys(part.records).length > 0) {
        entries.push(json(`${contributor.context}.json`, part.records));
        contexts.push(contributor.context);
      }
      for (const key of part.mediaKeys) keys.add(key);
      await ctx.progress(Math.floor(((i + 1) * 50) / all.length));
    }
    let missing = 0;
    for (const key of [...keys].sort()) {
      const object = await this.storage.get(key);
      if (object) entries.push({ path: `media/${key}`, body: object.body });
      else missing++;
    }
    if (missing > 0) this.logger.warn({ msg: 'export media missing', workspace_id: workspaceId, missing });
    return { entries, contexts, media: keys.size - missing, missing };
  }
}

function json(path: string, value: unknown): ArchiveEntry {
  return { path, body: Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8') };
}
