import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { loadSharp } from '../../../platform/media/sharp.js';
import type { DataSource } from 'typeorm';
import { AppError, newId } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Jobs, type JobRecord } from '../../../platform/queue/job.types.js';
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
import { sniffImageType, type ImageType } from '../domain/image-type.js';
import { CharacterRepository } from '../infrastructure/character.repository.js';
import { ReferenceImageRepository } from '../infrastructure/reference-image.repository.js';

export const MAX_REFERENCE_IMAGE_BYTES = 10 * 1024 * 1024;
const MAX_INPUT_PIXELS = 50_000_000;

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
    if (bytes.length > MAX_REFERENCE_IMAGE_BYTES) throw new AppError('payload_too_large', 'A reference image can be at most 10 MiB.');
    const kind = sniffImageType(bytes);
    if (!kind) throw new AppError('unsupported_media_type', 'A reference image must be a JPEG, PNG or WebP image.');
    const { width, height } = await dimensionsOf(bytes, kind);

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

/** Reads the header only; the dimensions are those of the image as displayed (EXIF orientation applied). */
async function dimensionsOf(bytes: Buffer, kind: ImageType): Promise<{ width: number; height: number }> {
  const sharp = await loadSharp();
  try {
    const meta = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    const expected = kind.ext === 'jpg' ? 'jpeg' : kind.ext;
    const width = meta.autoOrient?.width ?? meta.width;
    const height = meta.autoOrient?.height ?? meta.height;
    if (meta.format === expected && width > 0 && height > 0) return { width, height };
  } catch {
    // answered below
  }
  throw new AppError('unsupported_media_type', 'The image could not be read; send a valid JPEG, PNG or WebP file.');
}
