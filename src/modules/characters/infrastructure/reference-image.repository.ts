import { Injectable } from '@nestjs/common';
import { In, IsNull, Not } from 'typeorm';
import type { Tx } from '../../../platform/database/index.js';
import type { ReferenceImage } from '../domain/character.js';
import { ReferenceImageEntity } from './reference-image.entity.js';

function toReferenceImage(e: ReferenceImageEntity): ReferenceImage {
  const { embedding: _vector, ...rest } = e;
  return rest;
}

/** Uploaded reference images of a workspace's characters. */
@Injectable()
export class ReferenceImageRepository {
  async listForCharacter(m: Tx, workspaceId: string, characterId: string): Promise<ReferenceImage[]> {
    const rows = await m.getRepository(ReferenceImageEntity).find({
      where: { workspaceId, characterId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return rows.map(toReferenceImage);
  }

  /** The character's primary uploaded image (the newest, should several ever be marked primary). */
  async findPrimary(m: Tx, workspaceId: string, characterId: string): Promise<ReferenceImage | null> {
    const row = await m.getRepository(ReferenceImageEntity).findOne({
      where: { workspaceId, characterId, type: 'primary' },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
    return row ? toReferenceImage(row) : null;
  }

  /** Each image with its embedding, or null where none is computed yet. */
  async listWithEmbeddings(m: Tx, workspaceId: string, characterId: string): Promise<Array<ReferenceImage & { embedding: number[] | null }>> {
    const rows = await m.getRepository(ReferenceImageEntity).find({
      where: { workspaceId, characterId },
      order: { createdAt: 'ASC', id: 'ASC' },
      select: { id: true, characterId: true, workspaceId: true, type: true, url: true, storageKey: true, contentType: true, sizeBytes: true, width: true, height: true, createdAt: true, embedding: true },
    });
    return rows.map((r) => ({ ...toReferenceImage(r), embedding: r.embedding ?? null }));
  }

  async insert(m: Tx, image: ReferenceImage, embedding: number[] | null = null): Promise<void> {
    await m.getRepository(ReferenceImageEntity).insert({ ...image, embedding });
  }

  /** Keeps one primary per character: the previous one becomes a plain reference. */
  async demotePrimary(m: Tx, workspaceId: string, characterId: string): Promise<void> {
    await m.getRepository(ReferenceImageEntity).update({ workspaceId, characterId, type: 'primary' }, { type: 'reference' });
  }

  /** Stores an embedding once; a second computation of the same image changes nothing. */
  async saveEmbedding(m: Tx, workspaceId: string, id: string, embedding: number[]): Promise<void> {
    await m.getRepository(ReferenceImageEntity).update({ workspaceId, id, embedding: IsNull() }, { embedding });
  }

  /** Removes the images whose URL is no longer listed; answers what was removed. */
  async deleteUnlisted(m: Tx, workspaceId: string, characterId: string, keepUrls: string[]): Promise<ReferenceImage[]> {
    const repo = m.getRepository(ReferenceImageEntity);
    const gone = await repo.find({ where: { workspaceId, characterId, ...(keepUrls.length ? { url: Not(In(keepUrls)) } : {}) } });
    if (gone.length) await repo.delete({ workspaceId, id: In(gone.map((g) => g.id)) });
    return gone.map(toReferenceImage);
  }
}
