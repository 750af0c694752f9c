import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { readUploadedImage } from '../../../platform/media/index.js';
import { Storage } from '../../../platform/storage/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { addImagesRefusal, MAX_TRAINING_IMAGE_BYTES, removeImageRefusal, trainingImageKey, type TrainingImageRecord } from '../domain/lora.js';
import { LoraRepository } from '../infrastructure/lora.repository.js';

export interface TrainingImages {
  images: TrainingImageRecord[];
  imageCount: number;
}

/** A character's training images: uploaded, copied from its reference images, listed, removed. */
@Injectable()
export class TrainingImagesService {
  private readonly logger = new Logger('LoraTraining');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly loras: LoraRepository,
    private readonly characters: CharactersFacade,
    private readonly storage: Storage,
  ) {}

  async list(workspaceId: string, characterId: string): Promise<TrainingImages> {
    await this.characters.get(workspaceId, characterId);
    const images = await this.loras.listImages(this.ds.manager, workspaceId, characterId);
    return { images, imageCount: images.length };
  }

  /**
   * Adds uploaded images: 404 character, then each file's size (413) and type by its bytes (415),
   * then (under the character's lock) 409 while training and 409 past 30. Bytes are stored before
   * the transaction and removed if it refuses.
   */
  async upload(workspaceId: string, characterId: string, files: readonly Buffer[]): Promise<TrainingImages & { added: TrainingImageRecord[] }> {
    await this.characters.get(workspaceId, characterId);
    const accepted = await Promise.all(files.map((bytes) => readUploadedImage(bytes, MAX_TRAINING_IMAGE_BYTES, 'A training image')));
    await this.assertRoom(workspaceId, characterId, files.length);
    const now = new Date();
    const added = accepted.map((kind, i): TrainingImageRecord => {
      const id = newId('limg');
      return { id, workspaceId, characterId, storageKey: trainingImageKey(characterId, id, kind.ext), contentType: kind.mime, sizeBytes: files[i].length, width: kind.width, height: kind.height, createdAt: new Date(now.getTime() + i) };
    });
    await Promise.all(added.map((image, i) => this.storage.put(image.storageKey, files[i], image.contentType)));
    return this.record(added);
  }

  /** Copies the character's uploaded reference images in as training images (the same checks as an upload). */
  async copyReferenceImages(workspaceId: string, characterId: string): Promise<TrainingImages & { added: TrainingImageRecord[] }> {
    const references = await this.characters.referenceImages(workspaceId, characterId);
    if (references.length === 0) {
      throw new AppError('validation_failed', 'The character has no uploaded reference images to copy.', [
        { field: 'from_reference_images', message: 'the character has no uploaded reference images' },
      ]);
    }
    await this.assertRoom(workspaceId, characterId, references.length);
    const now = new Date();
    const added: TrainingImageRecord[] = [];
    for (const [i, ref] of references.entries()) {
      const id = newId('limg');
      const key = trainingImageKey(characterId, id, ref.storageKey.slice(ref.storageKey.lastIndexOf('.') + 1));
      if (!(await this.storage.copy(ref.storageKey, key))) continue;
      added.push({ id, workspaceId, characterId, storageKey: key, contentType: ref.contentType, sizeBytes: ref.sizeBytes, width: ref.width, height: ref.height, createdAt: new Date(now.getTime() + i) });
    }
    return this.record(added);
  }

  async remove(workspaceId: string, characterId: string, imageId: string): Promise<void> {
    const gone = await inTransaction(this.ds, async (tx) => {
      const status = await this.lockedStatus(tx, workspaceId, characterId);
      const image = await this.loras.deleteImage(tx, workspaceId, characterId, imageId);
      if (!image) throw AppError.notFound('Training image');
      const refusal = removeImageRefusal(status);
      if (refusal) throw refusal;
      return image;
    });
    await this.removeStored([gone.storageKey]);
  }

  /** A quick refusal before any bytes are stored; the transaction checks again under the lock. */
  private async assertRoom(workspaceId: string, characterId: string, adding: number): Promise<void> {
    const m = this.ds.manager;
    const [lora, count] = await Promise.all([this.loras.findByCharacter(m, workspaceId, characterId), this.loras.countImages(m, workspaceId, characterId)]);
    const refusal = addImagesRefusal(lora?.status ?? 'none', count, adding);
    if (refusal) throw refusal;
  }

  private async record(added: TrainingImageRecord[]): Promise<TrainingImages & { added: TrainingImageRecord[] }> {
    const { workspaceId, characterId } = added[0] ?? {};
    try {
      return await inTransaction(this.ds, async (tx) => {
        if (!workspaceId || !characterId) throw new AppError('validation_failed', 'No images were added.');
        const status = await this.lockedStatus(tx, workspaceId, characterId);
        const refusal = addImagesRefusal(status, await this.loras.countImages(tx, workspaceId, characterId), added.length);
        if (refusal) throw refusal;
        await this.loras.insertImages(tx, added);
        const images = await this.loras.listImages(tx, workspaceId, characterId);
        return { images, imageCount: images.length, added };
      });
    } catch (err) {
      await this.removeStored(added.map((i) => i.storageKey));
      throw err;
    }
  }

  /** Locks the character (image changes and trainings take turns) and answers its LoRA status. */
  private async lockedStatus(tx: Tx, workspaceId: string, characterId: string) {
    await this.characters.getForUpdate(tx, workspaceId, characterId);
    return (await this.loras.findByCharacter(tx, workspaceId, characterId))?.status ?? 'none';
  }

  private async removeStored(keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.storage.delete(key).catch((err: unknown) => this.logger.warn({ msg: 'could not remove stored object', key, err: String(err) }))));
  }
}
