import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { JobHandler, Jobs, jobOutputs, OnJobFailed, type JobContext, type JobRecord } from '../../../platform/queue/index.js';
import { MEDIA_TYPES, Storage } from '../../../platform/storage/index.js';
import { BillingFacade } from '../../billing/index.js';
import { VideoGenerator, type GeneratedMedia } from '../../generation/index.js';
import { isFinished, motionKeys, MOTION_TRANSFER_JOB, type MotionFailure, type MotionTransfer } from '../domain/motion-transfer.js';
import { MotionTransferRepository } from '../infrastructure/motion-transfer.repository.js';
import { MotionInputs, type CharacterLook, type MediaBytes } from './motion-inputs.js';

/** Preferred extension per media type, where MEDIA_TYPES lists several. */
const PREFERRED_EXT: Readonly<Record<string, string>> = { 'image/jpeg': 'jpg' };

/**
 * Runs a motion transfer on the cloud video provider (never the self-hosted path) and, when it
 * fails, marks the transfer failed and refunds it in the same transaction. Idempotent: a
 * finished transfer is answered as is, and outputs go to keys made from ids, so a re-delivered
 * job overwrites its own objects instead of adding new ones.
 */
@Injectable()
export class MotionTransferJob {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly transfers: MotionTransferRepository,
    private readonly inputs: MotionInputs,
    private readonly video: VideoGenerator,
    private readonly storage: Storage,
    private readonly billing: BillingFacade,
    private readonly config: AppConfig,
    private readonly jobs: Jobs,
  ) {}

  @JobHandler(MOTION_TRANSFER_JOB)
  async run(ctx: JobContext<'motion_transfer'>): Promise<Record<string, unknown>> {
    const mt = await this.begin(ctx.job);
    if (mt.status === 'completed') return resultOf(mt);
    await ctx.progress(5);
    const referenceVideo = await this.inputs.referenceVideo(mt);
    await ctx.progress(30);
    const look = await this.inputs.look(mt);
    await ctx.progress(40);
    const out = await this.generate(ctx.job.id, mt, look, referenceVideo);
    await ctx.progress(85);
    return resultOf(await this.finish(mt, ctx.job.id, out));
  }

  @OnJobFailed(MOTION_TRANSFER_JOB)
  async onFailed(tx: Tx, job: JobRecord<'motion_transfer'>): Promise<void> {
    const id = transferIdOf(job);
    const mt = await this.transfers.find(tx, job.workspaceId, id, { lock: true });
    // A finished transfer was already settled: completed keeps its charge, failed was refunded.
    if (mt && isFinished(mt.status)) return;
    const failure: MotionFailure = job.error ?? { code: 'job_failed', message: 'The motion transfer failed.' };
    if (mt) await this.transfers.move(tx, job.workspaceId, id, ['queued', 'processing'], 'failed', { error: failure });
    // The row is gone only with its character; the charge is refunded all the same.
    const amount = mt?.creditsCharged ?? job.payload.credits;
    if (Number.isSafeInteger(amount) && amount > 0) {
      await this.billing.credit(tx, { workspaceId: job.workspaceId, amount, reason: 'motion_transfer_refund', refType: 'motion_transfer', refId: id });
    }
  }

  /** The transfer as this run starts it: queued → processing; a re-delivered run finds it processing or done. */
  private async begin(job: JobRecord<'motion_transfer'>): Promise<MotionTransfer> {
    const id = transferIdOf(job);
    const m = this.ds.manager;
    const moved = await this.transfers.move(m, job.workspaceId, id, ['queued'], 'processing');
    const mt = moved ?? (await this.transfers.find(m, job.workspaceId, id));
    if (!mt) throw AppError.notFound('Motion transfer');
    if (mt.status === 'failed') throw new AppError('invalid_state_transition', 'The motion transfer has already failed.', { from: 'failed', action: 'run' });
    return mt;
  }

  private async generate(
    jobId: string,
    mt: MotionTransfer,
    look: CharacterLook,
    referenceVideo: MediaBytes,
  ): Promise<{ video: GeneratedMedia; thumbnail?: GeneratedMedia }> {
    const signal = AbortSignal.timeout(this.config.providers.timeoutMs);
    try {
      return await this.video.motionTransfer(
        { jobId, character: look.character, characterImage: look.image, referenceVideo, durationSeconds: mt.durationSeconds, aspectRatio: mt.aspectRatio },
        signal,
      );
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new AppError('upstream_failed', 'The video provider could not make the motion transfer.', { provider: 'video' });
    }
  }

  /**
   * Copies the output and thumbnail into storage under fixed keys, then marks the transfer completed
   * and ends its job in one transaction, so no read finds a completed transfer whose job still runs.
   */
  private async finish(mt: MotionTransfer, jobId: string, out: { video: GeneratedMedia; thumbnail?: GeneratedMedia }): Promise<MotionTransfer> {
    const videoKey = motionKeys.output(mt.id, jobId, extensionOf(out.video));
    const video = await this.storage.put(videoKey, out.video.bytes, out.video.contentType);
    const thumbnailKey = out.thumbnail ? motionKeys.thumbnail(mt.id, jobId, extensionOf(out.thumbnail)) : null;
    const thumbnail = out.thumbnail && thumbnailKey ? await this.storage.put(thumbnailKey, out.thumbnail.bytes, out.thumbnail.contentType) : null;
    const changes = { videoKey, videoUrl: video.url, thumbnailKey, thumbnailUrl: thumbnail?.url ?? null, error: null };
    const done = await inTransaction(this.ds, async (tx) => {
      const moved = await this.transfers.move(tx, mt.workspaceId, mt.id, ['processing'], 'completed', changes);
      if (moved) await this.jobs.settle(tx, mt.workspaceId, jobId, { status: 'completed', result: resultOf(moved) });
      return moved ?? (await this.transfers.find(tx, mt.workspaceId, mt.id));
    });
    if (!done || done.status !== 'completed') throw new AppError('invalid_state_transition', 'The motion transfer was finished by another run.', { from: done?.status ?? 'missing', action: 'complete' });
    return done;
  }
}

function extensionOf(media: GeneratedMedia): string {
  const type = media.contentType.split(';')[0].trim().toLowerCase();
  const ext = PREFERRED_EXT[type] ?? Object.keys(MEDIA_TYPES).find((e) => MEDIA_TYPES[e] === type);
  if (!ext) throw new AppError('upstream_failed', `The video provider answered a file type we cannot keep (${type}).`, { provider: 'video' });
  return ext;
}

function transferIdOf(job: JobRecord<'motion_transfer'>): string {
  const id = job.payload.motion_transfer_id;
  return typeof id === 'string' ? id : '';
}

/** Storage keys, not URLs: a job's result is kept, and the job's reads sign its outputs afresh. */
function resultOf(mt: MotionTransfer): Record<string, unknown> {
  const outputs = [
    ...(mt.videoKey ? [{ kind: 'video', key: mt.videoKey }] : []),
    ...(mt.thumbnailKey ? [{ kind: 'thumbnail', key: mt.thumbnailKey }] : []),
  ];
  return { motion_transfer_id: mt.id, duration_seconds: mt.durationSeconds, ...jobOutputs(outputs) };
}
