import { Injectable, Logger } from '@nestjs/common';
import { AppError, newId } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { Storage } from '../../../platform/storage/index.js';
import { referenceImageKey, type Character, type ReferenceImage } from '../domain/character.js';
import { CharacterRepository } from '../infrastructure/character.repository.js';
import { ReferenceImageRepository } from '../infrastructure/reference-image.repository.js';
import { CharacterQuota } from './character-quota.js';

export interface CloneRequest {
  sourceWorkspaceId: string;
  sourceCharacterId: string;
  targetWorkspaceId: string;
  /** The copy's name from the original's; the same name when absent. */
  rename?: (name: string) => string;
}

/** An uploaded reference image of a template: where its bytes are, and what the copy needs. */
export interface TemplateImage {
  url: string;
  storageKey: string;
  type: ReferenceImage['type'];
  contentType: string;
  sizeBytes: number;
  width: number;
  height: number;
  embedding: number[] | null;
}

/**
 * A character frozen as plain data (e.g. a marketplace listing's template): what a copy is made
 * from, independent of the original, which may later change or be deleted.
 */
export interface CharacterTemplate {
  name: string;
  niche: string;
  appearance: Character['appearance'];
  identity: Character['identity'];
  personality: Character['personality'];
  style: Character['style'];
  settings: Character['settings'];
  autopilot: boolean;
  talkingHeadEnabled: boolean;
  timezone: string | null;
  /** The character's image URL list: external URLs and the URLs of `images`. */
  referenceImages: string[];
  images: TemplateImage[];
  faceEmbedding: number[] | null;
}

type ImageToCopy = Omit<ReferenceImage, 'id' | 'characterId' | 'workspaceId' | 'createdAt'> & { embedding: number[] | null };

/**
 * Copies a character, with its reference images (bytes included, so the copy outlives the
 * original), into a workspace: fresh counters, no LoRA, not default. Used by duplicate and by
 * the marketplace purchase, always inside the caller's transaction.
 */
@Injectable()
export class CharacterCloner {
  private readonly logger = new Logger('CharacterCloner');

  constructor(
    private readonly characters: CharacterRepository,
    private readonly images: ReferenceImageRepository,
    private readonly quota: CharacterQuota,
    private readonly storage: Storage,
  ) {}

  async clone(tx: Tx, req: CloneRequest): Promise<Character> {
    const source = await this.characters.find(tx, req.sourceWorkspaceId, req.sourceCharacterId);
    if (!source) throw AppError.notFound('Character');
    await this.quota.reserve(tx, req.targetWorkspaceId);
    const embedding = await this.characters.faceEmbedding(tx, req.sourceWorkspaceId, source.id);
    const images = await this.images.listWithEmbeddings(tx, req.sourceWorkspaceId, source.id);
    const now = new Date();
    const id = newId('char');
    const copiedKeys: string[] = [];
    try {
      const copies = await this.copyImages(images, id, req.targetWorkspaceId, now, copiedKeys);
      const urlMap = new Map(copies.map((c) => [c.from, c.image.url]));
      const uploaded = new Set(images.map((i) => i.url));
      const clone: Character = {
        ...source,
        id,
        workspaceId: req.targetWorkspaceId,
        name: req.rename ? req.rename(source.name) : source.name,
        // External URLs stay as they are; our uploads point at their copies (dropped if the bytes are gone).
        referenceImages: source.referenceImages.flatMap((u) => (urlMap.has(u) ? [urlMap.get(u)!] : uploaded.has(u) ? [] : [u])),
        faceConsistencyTier: 'ip_adapter',
        loraTrainingStatus: 'none',
        contentCount: 0,
        followerCount: 0,
        lastPostDate: null,
        isDefault: false,
        createdAt: now,
        updatedAt: now,
      };
      await this.characters.insert(tx, clone, embedding);
      for (const c of copies) await this.images.insert(tx, c.image, c.embedding);
      return clone;
    } catch (err) {
      await this.removeQuietly(copiedKeys);
      throw err;
    }
  }

  /** The character as a template, or null when it does not exist in `workspaceId`. */
  async snapshot(tx: Tx, workspaceId: string, id: string): Promise<CharacterTemplate | null> {
    const source = await this.characters.find(tx, workspaceId, id);
    if (!source) return null;
    const faceEmbedding = await this.characters.faceEmbedding(tx, workspaceId, id);
    const images = await this.images.listWithEmbeddings(tx, workspaceId, id);
    return {
      name: source.name,
      niche: source.niche,
      appearance: { ...source.appearance },
      identity: { ...source.identity },
      personality: { ...source.personality },
      style: { ...source.style },
      settings: { ...source.settings },
      autopilot: source.autopilot,
      talkingHeadEnabled: source.talkingHeadEnabled,
      timezone: source.timezone,
      referenceImages: [...source.referenceImages],
      images: images.map((i) => ({
        url: i.url,
        storageKey: i.storageKey,
        type: i.type,
        contentType: i.contentType,
        sizeBytes: i.sizeBytes,
        width: i.width,
        height: i.height,
        embedding: i.embedding,
      })),
      faceEmbedding,
    };
  }

  /**
   * A new character in `targetWorkspaceId` made from a template, inside `tx`: checks the plan limit
   * (403), copies the template's image bytes to the new character's own keys (a template whose
   * bytes are gone loses those URLs), fresh counters, no LoRA, not default.
   */
  async createFromTemplate(tx: Tx, targetWorkspaceId: string, template: CharacterTemplate): Promise<Character> {
    await this.quota.reserve(tx, targetWorkspaceId);
    const now = new Date();
    const id = newId('char');
    const copiedKeys: string[] = [];
    try {
      const copies = await this.copyImages(template.images, id, targetWorkspaceId, now, copiedKeys);
      const urlMap = new Map(copies.map((c) => [c.from, c.image.url]));
      const character = characterFromTemplate(template, { id, workspaceId: targetWorkspaceId, now, urlMap });
      await this.characters.insert(tx, character, template.faceEmbedding);
      for (const c of copies) await this.images.insert(tx, c.image, c.embedding);
      return character;
    } catch (err) {
      await this.removeQuietly(copiedKeys);
      throw err;
    }
  }

  private async copyImages(images: ImageToCopy[], characterId: string, workspaceId: string, now: Date, copiedKeys: string[]) {
    const copies: Array<{ from: string; image: ReferenceImage; embedding: number[] | null }> = [];
    for (const { embedding, ...img } of images) {
      const refId = newId('ref');
      const key = referenceImageKey(characterId, refId, img.storageKey.slice(img.storageKey.lastIndexOf('.') + 1));
      const stored = await this.storage.copy(img.storageKey, key);
      if (!stored) {
        this.logger.warn({ msg: 'reference image bytes missing; not copied', key: img.storageKey });
        continue;
      }
      copiedKeys.push(key);
      copies.push({ from: img.url, embedding, image: { ...img, id: refId, characterId, workspaceId, url: stored.url, storageKey: key, createdAt: now } });
    }
    return copies;
  }

  async removeQuietly(keys: string[]): Promise<void> {
    for (const key of keys) {
      await this.storage.delete(key).catch((err: unknown) => this.logger.warn({ msg: 'could not remove stored object', key, err: String(err) }));
    }
  }
}

/** The new character's fields from a template; uploaded URLs point at their copies, lost ones are dropped. */
function characterFromTemplate(t: CharacterTemplate, at: { id: string; workspaceId: string; now: Date; urlMap: Map<string, string> }): Character {
  const uploaded = new Set(t.images.map((i) => i.url));
  return {
    id: at.id,
    workspaceId: at.workspaceId,
    name: t.name,
    niche: t.niche,
    appearance: { ...t.appearance },
    identity: { ...t.identity },
    personality: { ...t.personality },
    style: { ...t.style },
    settings: { ...t.settings },
    referenceImages: t.referenceImages.flatMap((u) => (at.urlMap.has(u) ? [at.urlMap.get(u)!] : uploaded.has(u) ? [] : [u])),
    talkingHeadEnabled: t.talkingHeadEnabled,
    autopilot: t.autopilot,
    faceConsistencyTier: 'ip_adapter',
    loraTrainingStatus: 'none',
    contentCount: 0,
    followerCount: 0,
    lastPostDate: null,
    isDefault: false,
    timezone: t.timezone,
    faceEmbeddingUpdatedAt: t.faceEmbedding ? at.now : null,
    createdAt: at.now,
    updatedAt: at.now,
  };
}
