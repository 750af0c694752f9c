import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../../core/index.js';
import { inTransaction, type Tx } from '../../../../platform/database/index.js';
import { JobHandler } from '../../../../platform/queue/job-handler.decorator.js';
import type { JobContext } from '../../../../platform/queue/job.types.js';
import { Storage } from '../../../../platform/storage/index.js';
import { FACE_EMBEDDING_JOB } from '../../domain/character.js';
import { isEmbedding, meanVector, sameVector } from '../../domain/embedding.js';
import { CharacterRepository } from '../../infrastructure/character.repository.js';
import { ReferenceImageRepository } from '../../infrastructure/reference-image.repository.js';
import { AppearanceEmbedder } from '../ports/appearance-embedder.js';

/**
 * Recomputes a character's face embedding: embeds each reference image that has none yet, then
 * stores the mean over all of them. Idempotent: a second run embeds nothing and changes nothing.
 */
@Injectable()
export class FaceEmbeddingJob {
  private readonly logger = new Logger('FaceEmbeddingJob');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly characters: CharacterRepository,
    private readonly images: ReferenceImageRepository,
    private readonly storage: Storage,
    private readonly embedder: AppearanceEmbedder,
  ) {}

  @JobHandler(FACE_EMBEDDING_JOB)
  async run(ctx: JobContext): Promise<Record<string, unknown>> {
    const { workspaceId, characterId } = ctx.job;
    if (!characterId) throw new AppError('validation_failed', 'The job names no character.');
    const pending = (await this.images.listWithEmbeddings(this.ds.manager, workspaceId, characterId)).filter((i) => !i.embedding);
    let embedded = 0;
    const skipped: string[] = [];
    for (const [n, image] of pending.entries()) {
      if (await this.embedOne(workspaceId, image.id, image.storageKey)) embedded += 1;
      else skipped.push(image.id);
      await ctx.progress(Math.floor(((n + 1) / (pending.length + 1)) * 100));
    }
    const summary = await inTransaction(this.ds, (tx) => this.storeMean(tx, workspaceId, characterId));
    return { character_id: characterId, embedded_images: embedded, skipped_images: skipped, ...summary };
  }

  /** False when the image cannot be embedded for good (bytes gone or undecodable); provider failures throw. */
  private async embedOne(workspaceId: string, imageId: string, key: string): Promise<boolean> {
    const object = await this.storage.get(key);
    if (!object) {
      this.logger.warn({ msg: 'reference image bytes missing', reference_image_id: imageId });
      return false;
    }
    let vector: number[];
    try {
      vector = await this.embedder.embed(object.body);
    } catch (err) {
      if (err instanceof AppError && err.code === 'unsupported_media_type') {
        this.logger.warn({ msg: 'reference image cannot be embedded', reference_image_id: imageId, reason: err.message });
        return false;
      }
      throw err;
    }
    if (!isEmbedding(vector)) throw new AppError('upstream_failed', 'The embedder answered something that is not a 512-number vector.');
    await this.images.saveEmbedding(this.ds.manager, workspaceId, imageId, vector);
    return true;
  }

  /** Under the character's row lock, so concurrent runs cannot store a mean over a stale set. */
  private async storeMean(tx: Tx, workspaceId: string, characterId: string): Promise<Record<string, unknown>> {
    const character = await this.characters.find(tx, workspaceId, characterId, { lock: true });
    if (!character) return { character_deleted: true, reference_images: 0, updated: false };
    const vectors = (await this.images.listWithEmbeddings(tx, workspaceId, characterId)).flatMap((i) => (i.embedding ? [i.embedding] : []));
    const mean = meanVector(vectors);
    const current = await this.characters.faceEmbedding(tx, workspaceId, characterId);
    const changed = !sameVector(current, mean) || (mean !== null && character.faceEmbeddingUpdatedAt === null);
    if (changed) await this.characters.saveFaceEmbedding(tx, workspaceId, characterId, mean, new Date());
    return { reference_images: vectors.length, updated: changed };
  }
}
