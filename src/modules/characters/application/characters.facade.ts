import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, characterLimitReached, PLAN_LIMITS, type Plan } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { Character } from '../domain/character.js';
import { postingTimezone } from '../domain/posting-timezone.js';
import { CharacterRepository } from '../infrastructure/character.repository.js';
import { ReferenceImageRepository } from '../infrastructure/reference-image.repository.js';

export interface PrimaryReferenceImage {
  url: string;
  storageKey: string;
  contentType: string;
}
/** An uploaded reference image as other contexts may copy it. */
export interface UploadedReferenceImage {
  storageKey: string;
  contentType: string;
  sizeBytes: number;
  width: number;
  height: number;
}
import { CharacterCloner, type CharacterTemplate } from './character-cloner.js';

/**
 * What other contexts (content, publishing, marketplace, LoRA, voice) may do with characters.
 * Methods taking `tx` run inside the caller's transaction: with PGlite, pass it whenever you hold one.
 */
@Injectable()
export class CharactersFacade {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly characters: CharacterRepository,
    private readonly cloner: CharacterCloner,
    private readonly images: ReferenceImageRepository,
    private readonly config: AppConfig,
  ) {}

  /** The character, or 404 `not_found` when it does not exist or belongs to another workspace. */
  async get(workspaceId: string, id: string, tx?: Tx): Promise<Character> {
    const found = await this.find(workspaceId, id, tx);
    if (!found) throw AppError.notFound('Character');
    return found;
  }

  /**
   * The character, for paid work (generation, training, cloning a voice): 404 as `get`, and 403
   * `character_limit_reached` when the workspace holds more characters than its plan allows (after
   * a downgrade) and this one is beyond the limit in creation order. Such characters stay readable
   * and editable; they generate again once the workspace is back under the limit.
   */
  async getForGeneration(workspaceId: string, id: string, tx?: Tx): Promise<Character> {
    const m = tx ?? this.ds.manager;
    const character = await this.get(workspaceId, id, m);
    const rank = await this.characters.seniority(m, workspaceId, id);
    if (rank) {
      const limit = PLAN_LIMITS[rank.plan].characterLimit;
      if (rank.older >= limit) throw characterLimitReached(rank.plan, limit, rank.total);
    }
    return character;
  }

  find(workspaceId: string, id: string, tx?: Tx): Promise<Character | null> {
    return this.characters.find(tx ?? this.ds.manager, workspaceId, id);
  }

  /**
   * The one zone a character's posts are planned, scheduled and shown in: its own timezone, else
   * the zone its identity's location names, else the configured default (`DEFAULT_TIMEZONE`).
   * Without a character (the workspace calendar), the default.
   */
  postingTimezone(character: Pick<Character, 'timezone' | 'identity'> | null): string {
    const fallback = this.config.publishing.defaultTimezone;
    return character ? postingTimezone(character, fallback) : fallback;
  }

  /**
   * The uploaded primary reference image (what image-to-image, video and motion transfer start
   * from), or null when the character has none. Another workspace's character answers null.
   */
  async primaryReferenceImage(workspaceId: string, characterId: string, tx?: Tx): Promise<PrimaryReferenceImage | null> {
    const image = await this.images.findPrimary(tx ?? this.ds.manager, workspaceId, characterId);
    return image ? { url: image.url, storageKey: image.storageKey, contentType: image.contentType } : null;
  }

  /** The character's uploaded reference images (primary first), or 404 when the character is not the workspace's. */
  async referenceImages(workspaceId: string, characterId: string, tx?: Tx): Promise<UploadedReferenceImage[]> {
    const m = tx ?? this.ds.manager;
    await this.get(workspaceId, characterId, m);
    const images = await this.images.listForCharacter(m, workspaceId, characterId);
    return images.map((i) => ({ storageKey: i.storageKey, contentType: i.contentType, sizeBytes: i.sizeBytes, width: i.width, height: i.height }));
  }

  /** Like `get`, and locks the row until `tx` ends (e.g. while changing its LoRA status). */
  async getForUpdate(tx: Tx, workspaceId: string, id: string): Promise<Character> {
    const found = await this.characters.find(tx, workspaceId, id, { lock: true });
    if (!found) throw AppError.notFound('Character');
    return found;
  }

  /**
   * Clones a character (a marketplace template) into another workspace inside `tx`: checks the
   * target's plan limit (403 `character_limit_reached`), copies reference images and their bytes,
   * resets counters, LoRA and default. Stored bytes copied before a later rollback of `tx` are
   * left behind unreferenced.
   */
  cloneInto(tx: Tx, req: { sourceWorkspaceId: string; sourceCharacterId: string; targetWorkspaceId: string; name?: string }): Promise<Character> {
    const { name, ...rest } = req;
    return this.cloner.clone(tx, { ...rest, rename: name === undefined ? undefined : () => name });
  }

  /**
   * The character frozen as a plain template (profile, image URLs, the storage keys of its uploads
   * and their embeddings), or 404 when it does not exist in `workspaceId`. The template keeps
   * pointing at the character's stored bytes: copy them if the template must outlive it.
   */
  async snapshot(workspaceId: string, id: string, tx?: Tx): Promise<CharacterTemplate> {
    const template = await this.cloner.snapshot(tx ?? this.ds.manager, workspaceId, id);
    if (!template) throw AppError.notFound('Character');
    return template;
  }

  /**
   * A new character in `targetWorkspaceId` from a template, inside `tx`: checks the target's plan
   * limit (403 `character_limit_reached`) and copies the template's image bytes to new keys.
   * Bytes copied before a later rollback of `tx` are left behind unreferenced.
   */
  createFromTemplate(tx: Tx, targetWorkspaceId: string, template: CharacterTemplate): Promise<Character> {
    return this.cloner.createFromTemplate(tx, targetWorkspaceId, template);
  }

  /**
   * The workspace's plan limit and character count, read after locking the workspace row until
   * `tx` ends, so a check made on them holds until the transaction adds its character.
   */
  async characterRoom(tx: Tx, workspaceId: string): Promise<{ plan: Plan; limit: number; count: number }> {
    const plan = await this.characters.lockWorkspacePlan(tx, workspaceId);
    if (!plan) throw AppError.notFound('Workspace');
    return { plan, limit: PLAN_LIMITS[plan].characterLimit, count: await this.characters.count(tx, workspaceId) };
  }

  /** Sets fields other contexts own the truth of (LoRA training status, consistency tier). */
  async setTraining(tx: Tx, workspaceId: string, id: string, changes: { loraTrainingStatus?: string; faceConsistencyTier?: string }): Promise<void> {
    await this.characters.update(tx, workspaceId, id, { ...changes, updatedAt: new Date() });
  }

  /** Counts generated content on the character (negative to undo). */
  addContent(tx: Tx, workspaceId: string, id: string, by = 1): Promise<void> {
    return this.characters.addContent(tx, workspaceId, id, by);
  }

  /** Records a publication: `last_post_date` moves forward, never back. */
  recordPost(tx: Tx, workspaceId: string, id: string, at: Date): Promise<void> {
    return this.characters.recordPost(tx, workspaceId, id, at);
  }

  /**
   * Sets `follower_count` (contract §15: the latest followers of the accounts the character's posts
   * went to, as analytics measures them). Characters of another workspace are left alone.
   */
  setFollowerCounts(workspaceId: string, counts: ReadonlyMap<string, number>, tx?: Tx): Promise<void> {
    return this.characters.setFollowerCounts(tx ?? this.ds.manager, workspaceId, counts);
  }
}
