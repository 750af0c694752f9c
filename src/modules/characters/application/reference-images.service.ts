import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Jobs, type JobRecord } from '../../../platform/queue/job.types.js';
import { readUploadedImage } from '../../../platform/media/index.js';
import { Storage } from '../../../platform/storage/index.js';
import {
  FACE_EMBEDDING_JOB,
  MAX_REFERENCE_URLS,
  referenceImageKey,
  referenceTypeFor,
  type Character,
  type ReferenceImage,
  type ReferenceImageType,
} from '../domain/character.js';
import { CharacterRepository } from '../infrastructure/character.repository.js';
import { ReferenceImageRepository } from '../infrastructure/reference-image.repository.js';

export const MAX_REFERENCE_IMAGE_BYTES = 10 * 1024 * 1024;

export interface UploadedReferenceImage {
  referenceImage: ReferenceImage;
  character: Character;
  job: JobRecord;
}

/** Stores a reference image, records it on the character and queues the face-embedding refresh. */
@Injectable()
export class ReferenceImagesService {
  private readonly logger = new Logger('ReferenceImages');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly characters: CharacterRepository,
    private readonly images: ReferenceImageRepository,
    private readonly storage: Storage,
    private readonly jobs: Jobs,
  ) {}

  async upload(workspaceId: string, characterId: string, bytes: Buffer, requestedType?: ReferenceImageType): Promise<UploadedReferenceImage> {
    // A character the caller cannot see is 404 whatever was sent, and nothing is written for it.
    const current = await this.characters.find(this.ds.manager, workspaceId, characterId);
    if (!current) throw AppError.notFound('Character');
    assertRoomForImage(current);
    const kind = await readUploadedImage(bytes, MAX_REFERENCE_IMAGE_BYTES, 'A reference image');
    const { width, height } = kind;

    const id = newId('ref');
    const key = referenceImageKey(characterId, id, kind.ext);
    const stored = await this.storage.put(key, bytes, kind.mime);
    let result: UploadedReferenceImage;
    try {
      const image = { id, characterId, workspaceId, url: stored.url, storageKey: key, contentType: kind.mime, sizeBytes: bytes.length, width, height };
      result = await inTransaction(this.ds, (tx) => this.record(tx, image, requestedType));
    } catch (err) {
      await this.storage.delete(key).catch((e: unknown) => this.logger.warn({ msg: 'could not remove stored object', key, err: String(e) }));
      throw err;
    }
    await this.jobs.enqueue(result.job);
    return result;
  }

  /** Inside the transaction: the row, the character's URL list, one primary, and the job. */
  private async record(tx: Tx, image: Omit<ReferenceImage, 'type' | 'createdAt'>, requestedType?: ReferenceImageType): Promise<UploadedReferenceImage> {
    const { workspaceId, characterId } = image;
    const character = await this.characters.find(tx, workspaceId, characterId, { lock: true });
    if (!character) throw AppError.notFound('Character');
    assertRoomForImage(character);
    const existing = await this.images.listForCharacter(tx, workspaceId, characterId);
    const type = referenceTypeFor(requestedType, existing.length);
    if (type === 'primary') await this.images.demotePrimary(tx, workspaceId, characterId);
    const now = new Date();
    const referenceImage: ReferenceImage = { ...image, type, createdAt: now };
    await this.images.insert(tx, referenceImage);
    const referenceImages = [...character.referenceImages, image.url];
    await this.characters.update(tx, workspaceId, characterId, { referenceImages, updatedAt: now });
    const job = await this.jobs.create(tx, { workspaceId, jobType: FACE_EMBEDDING_JOB, characterId, payload: { reference_image_id: image.id } });
    return { referenceImage, character: { ...character, referenceImages, updatedAt: now }, job };
  }
}

function assertRoomForImage(character: Character): void {
  if (character.referenceImages.length >= MAX_REFERENCE_URLS) {
    throw new AppError('validation_failed', `A character holds at most ${MAX_REFERENCE_URLS} reference images; remove one first.`, [
      { field: 'file', message: `at most ${MAX_REFERENCE_URLS} reference images per character` },
    ]);
  }
}
