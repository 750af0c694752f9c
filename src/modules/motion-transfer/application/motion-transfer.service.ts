import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, isId, newId, type Page, type PageRequest } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Jobs, type JobRecord } from '../../../platform/queue/index.js';
import { Storage } from '../../../platform/storage/index.js';
import { BillingFacade } from '../../billing/index.js';
import { CharactersFacade } from '../../characters/index.js';
import {
  DEFAULT_ASPECT_RATIO,
  DEFAULT_DURATION_SECONDS,
  MAX_REFERENCE_VIDEO_BYTES,
  motionKeys,
  motionTransferCredits,
  MOTION_TRANSFER_JOB,
  type MotionAspectRatio,
  type MotionTransfer,
} from '../domain/motion-transfer.js';
import { sniffVideoType, type VideoType } from '../domain/video-type.js';
import { MotionTransferRepository } from '../infrastructure/motion-transfer.repository.js';
import { CharacterImages } from './ports/character-images.js';

export type MotionSourceInput = { kind: 'url'; url: string } | { kind: 'upload'; bytes: Buffer };

export interface StartMotionTransfer {
  source: MotionSourceInput;
  durationSeconds?: number;
  aspectRatio?: MotionAspectRatio;
}

export interface MotionTransferWithJob {
  motionTransfer: MotionTransfer;
  job: JobRecord;
}

export interface StartedMotionTransfer extends MotionTransferWithJob {
  pricing: { creditsPerFiveSeconds: number; estimatedCredits: number };
}

/** Accepts motion transfers (charged when accepted), and answers their status and history. */
@Injectable()
export class MotionTransferService {
  private readonly logger = new Logger('MotionTransfer');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly transfers: MotionTransferRepository,
    private readonly characters: CharactersFacade,
    private readonly images: CharacterImages,
    private readonly billing: BillingFacade,
    private readonly jobs: Jobs,
    private readonly storage: Storage,
    private readonly config: AppConfig,
  ) {}

  /**
   * Checks in the order a client can fix them: 404 character, 413/415 upload, 409 no primary
   * image, 402 credits. An upload is stored before the transaction and removed if it rolls back.
   */
  async start(workspaceId: string, characterId: string, req: StartMotionTransfer): Promise<StartedMotionTransfer> {
    await this.characters.getForGeneration(workspaceId, characterId);
    const upload = req.source.kind === 'upload' ? acceptUpload(req.source.bytes) : null;
    await this.assertHasLook(workspaceId, characterId);
    const draft = this.draft(workspaceId, characterId, req, upload);
    if (req.source.kind === 'upload' && upload && draft.sourceKey) {
      await this.storage.put(draft.sourceKey, req.source.bytes, upload.mime);
    }
    let created: MotionTransferWithJob;
    try {
      created = await inTransaction(this.ds, (tx) => this.record(tx, draft));
    } catch (err) {
      if (upload && draft.sourceKey) await this.removeStored(draft.sourceKey);
      throw err;
    }
    await this.jobs.enqueue(created.job);
    const pricing = { creditsPerFiveSeconds: this.pricePerFiveSeconds, estimatedCredits: draft.creditsCharged };
    return { ...created, pricing };
  }

  /** One transfer of the character, named by its `mt_` id or by its `job_` id. */
  async get(workspaceId: string, characterId: string, ref: string): Promise<MotionTransferWithJob> {
    const m = this.ds.manager;
    const found = isId('mt', ref)
      ? await this.transfers.find(m, workspaceId, ref)
      : isId('job', ref)
        ? await this.transfers.findByJob(m, workspaceId, ref)
        : null;
    if (!found || found.characterId !== characterId) throw AppError.notFound('Motion transfer');
    const job = await this.jobs.get(workspaceId, found.jobId);
    if (!job) throw AppError.notFound('Motion transfer');
    return { motionTransfer: found, job };
  }

  async list(workspaceId: string, characterId: string, page: PageRequest): Promise<Page<MotionTransfer>> {
    await this.characters.get(workspaceId, characterId);
    return this.transfers.list(this.ds.manager, workspaceId, characterId, page);
  }

  get pricePerFiveSeconds(): number {
    return this.config.prices.motionTransferPerFiveSeconds;
  }

  /** Inside the creating transaction: the checks again, the charge, the job row, the transfer row. */
  private async record(tx: Tx, draft: MotionTransfer): Promise<MotionTransferWithJob> {
    const { workspaceId, characterId, id } = draft;
    await this.characters.get(workspaceId, characterId, tx);
    await this.assertHasLook(workspaceId, characterId, tx);
    if (draft.creditsCharged > 0) {
      await this.billing.debit(tx, { workspaceId, amount: draft.creditsCharged, reason: 'motion_transfer', refType: 'motion_transfer', refId: id });
    }
    const job = await this.jobs.create(tx, {
      workspaceId,
      jobType: MOTION_TRANSFER_JOB,
      characterId,
      payload: { motion_transfer_id: id, credits: draft.creditsCharged },
    });
    const motionTransfer: MotionTransfer = { ...draft, jobId: job.id };
    await this.transfers.insert(tx, motionTransfer);
    return { motionTransfer, job };
  }

  private draft(workspaceId: string, characterId: string, req: StartMotionTransfer, upload: VideoType | null): MotionTransfer {
    const id = newId('mt');
    const durationSeconds = req.durationSeconds ?? DEFAULT_DURATION_SECONDS;
    const sourceKey = upload ? motionKeys.source(id, upload.ext) : null;
    const now = new Date();
    return {
      id,
      workspaceId,
      characterId,
      jobId: '',
      status: 'queued',
      source: req.source.kind,
      referenceVideoUrl: req.source.kind === 'url' ? req.source.url : sourceKey && this.storage.urlFor(sourceKey),
      sourceKey,
      durationSeconds,
      aspectRatio: req.aspectRatio ?? DEFAULT_ASPECT_RATIO,
      videoKey: null,
      videoUrl: null,
      thumbnailKey: null,
      thumbnailUrl: null,
      creditsCharged: motionTransferCredits(durationSeconds, this.pricePerFiveSeconds),
      error: null,
      createdAt: now,
      updatedAt: now,
    };
  }

  private async assertHasLook(workspaceId: string, characterId: string, tx?: Tx): Promise<void> {
    if (await this.images.primaryImage(workspaceId, characterId, tx)) return;
    throw new AppError(
      'invalid_state_transition',
      'The character has no uploaded primary reference image; upload one to /characters/{id}/reference-images first.',
      { from: 'no_primary_image', action: 'motion_transfer' },
    );
  }

  private async removeStored(key: string): Promise<void> {
    await this.storage.delete(key).catch((err: unknown) => this.logger.warn({ msg: 'could not remove stored object', key, err: String(err) }));
  }
}

/** An uploaded driving video: at most 100 MiB, and MP4, MOV or WebM by its bytes. */
export function acceptUpload(bytes: Buffer): VideoType {
  if (bytes.length > MAX_REFERENCE_VIDEO_BYTES) throw new AppError('payload_too_large', 'A reference video can be at most 100 MiB.');
  const kind = sniffVideoType(bytes);
  if (!kind) throw new AppError('unsupported_media_type', 'A reference video must be an MP4, MOV or WebM file.');
  return kind;
}
