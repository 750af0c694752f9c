import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../core/index.js';
import { Storage } from '../../../platform/storage/index.js';
import { CharactersFacade, toCharacterBrief } from '../../characters/index.js';
import type { CharacterBrief } from '../../generation/index.js';
import { MAX_REFERENCE_VIDEO_BYTES, motionKeys, type MotionTransfer } from '../domain/motion-transfer.js';
import { sniffVideoType } from '../domain/video-type.js';
import { MotionTransferRepository } from '../infrastructure/motion-transfer.repository.js';
import { CharacterImages } from './ports/character-images.js';
import { ReferenceVideoDownloader } from './ports/reference-video-downloader.js';

export interface MediaBytes {
  bytes: Buffer;
  contentType: string;
}

export interface CharacterLook {
  character: CharacterBrief;
  image: MediaBytes;
}

/** Gathers what a transfer is made from: the driving video (in our storage) and the character's look. */
@Injectable()
export class MotionInputs {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly transfers: MotionTransferRepository,
    private readonly storage: Storage,
    private readonly downloader: ReferenceVideoDownloader,
    private readonly characters: CharactersFacade,
    private readonly images: CharacterImages,
  ) {}

  /**
   * The driving video's bytes. A URL is downloaded once: its bytes are stored under a fixed key
   * and the key recorded, so a re-delivered job reads them back instead of downloading again.
   */
  async referenceVideo(mt: MotionTransfer): Promise<MediaBytes> {
    if (mt.sourceKey) {
      const stored = await this.storage.get(mt.sourceKey);
      if (stored) return { bytes: stored.body, contentType: stored.contentType };
      if (mt.source === 'upload') throw new AppError('not_found', 'The uploaded reference video is no longer stored.');
    }
    if (!mt.referenceVideoUrl) throw new AppError('validation_failed', 'The motion transfer has no reference video.');
    const bytes = await this.downloader.download(mt.referenceVideoUrl, { maxBytes: MAX_REFERENCE_VIDEO_BYTES });
    const kind = sniffVideoType(bytes);
    if (!kind) throw new AppError('unsupported_media_type', 'The reference video URL does not serve an MP4, MOV or WebM file.');
    const key = motionKeys.source(mt.id, kind.ext);
    await this.storage.put(key, bytes, kind.mime);
    await this.transfers.saveSource(this.ds.manager, mt.workspaceId, mt.id, key);
    return { bytes, contentType: kind.mime };
  }

  /** The character as providers see it, and the bytes of its primary reference image. */
  async look(mt: MotionTransfer): Promise<CharacterLook> {
    const character = await this.characters.get(mt.workspaceId, mt.characterId);
    const primary = await this.images.primaryImage(mt.workspaceId, mt.characterId);
    const stored = primary && (await this.storage.get(primary.storageKey));
    if (!primary || !stored) {
      throw new AppError('invalid_state_transition', 'The character no longer has an uploaded primary reference image.', {
        from: 'no_primary_image',
        action: 'motion_transfer',
      });
    }
    return { character: toCharacterBrief(character, primary.url), image: { bytes: stored.body, contentType: primary.contentType } };
  }
}
