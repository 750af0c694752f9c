import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId, type Caller, type Page, type PageRequest } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { Jobs, type JobRecord } from '../../../platform/queue/job.types.js';
import { AuditLog } from '../../audit/index.js';
import { characterChanges, copyName, FACE_EMBEDDING_JOB, newCharacter, type Character, type CharacterInput } from '../domain/character.js';
import type { CharacterJson } from '../infrastructure/character-json.js';
import { CharacterRepository, type CharacterListFilter } from '../infrastructure/character.repository.js';
import { ReferenceImageRepository } from '../infrastructure/reference-image.repository.js';
import { CharacterCloner } from './character-cloner.js';
import { CharacterFiles } from './character-files.js';
import { CharacterQuota } from './character-quota.js';

/** Use cases on characters of the caller's workspace. */
@Injectable()
export class CharactersService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly characters: CharacterRepository,
    private readonly images: ReferenceImageRepository,
    private readonly quota: CharacterQuota,
    private readonly cloner: CharacterCloner,
    private readonly files: CharacterFiles,
    private readonly jobs: Jobs,
    private readonly audit: AuditLog,
  ) {}

  create(workspaceId: string, input: CharacterInput & { name: string; niche: string }): Promise<Character> {
    return inTransaction(this.ds, (tx) => this.quota.add(tx, newCharacter(newId('char'), workspaceId, input, new Date())));
  }

  /** Newest first, already in the wire shape (the list routes' hot path). */
  list(workspaceId: string, page: PageRequest, filter: CharacterListFilter = {}): Promise<Page<CharacterJson>> {
    return this.characters.list(workspaceId, page, filter);
  }

  async get(workspaceId: string, id: string): Promise<Character> {
    const found = await this.characters.find(this.ds.manager, workspaceId, id);
    if (!found) throw AppError.notFound('Character');
    return found;
  }

  /**
   * Applies a PATCH. Uploaded images whose URL the new `reference_images` list leaves out are
   * removed, and the face embedding is recomputed without them.
   */
  async update(workspaceId: string, id: string, input: CharacterInput): Promise<Character> {
    const { character, removedKeys, job } = await inTransaction(this.ds, async (tx) => {
      const current = await this.characters.find(tx, workspaceId, id, { lock: true });
      if (!current) throw AppError.notFound('Character');
      const changes = characterChanges(current, input, new Date());
      let removedKeys: string[] = [];
      let job: JobRecord | null = null;
      if (changes.referenceImages) {
        const removed = await this.images.deleteUnlisted(tx, workspaceId, id, changes.referenceImages);
        removedKeys = removed.map((r) => r.storageKey);
        if (removed.length) {
          job = await this.jobs.create(tx, { workspaceId, jobType: FACE_EMBEDDING_JOB, characterId: id, payload: { reason: 'reference_images_removed' } });
        }
      }
      await this.characters.update(tx, workspaceId, id, changes);
      return { character: { ...current, ...changes }, removedKeys, job };
    });
    if (job) await this.jobs.enqueue(job);
    await this.cloner.removeQuietly(removedKeys);
    return character;
  }

  /** Makes this the workspace's default character; the previous default is unset. */
  setDefault(workspaceId: string, id: string): Promise<Character> {
    return inTransaction(this.ds, async (tx) => {
      // Serialises default changes of one workspace, so two at once cannot trip the unique index.
      await this.characters.lockWorkspacePlan(tx, workspaceId);
      const current = await this.characters.find(tx, workspaceId, id, { lock: true });
      if (!current) throw AppError.notFound('Character');
      const now = new Date();
      if (!current.isDefault) await this.characters.makeDefault(tx, workspaceId, id, now);
      return current.isDefault ? current : { ...current, isDefault: true, updatedAt: now };
    });
  }

  duplicate(workspaceId: string, id: string): Promise<Character> {
    return inTransaction(this.ds, (tx) =>
      this.cloner.clone(tx, { sourceWorkspaceId: workspaceId, sourceCharacterId: id, targetWorkspaceId: workspaceId, rename: copyName }),
    );
  }

  /**
   * Deletes the character, its reference images, and through foreign keys its content, motion
   * transfers and posts; then, once that committed and before answering, every file of theirs
   * (best effort, a failure logged): signed URLs still in someone's hands find nothing. What
   * other contexts keep at providers for it (a voice clone) is released after commit too.
   */
  async delete(actor: Pick<Caller, 'workspaceId' | 'userId'>, id: string): Promise<void> {
    const { workspaceId } = actor;
    let releases: Array<() => Promise<void>> = [];
    const keys = await inTransaction(this.ds, async (tx) => {
      const current = await this.characters.find(tx, workspaceId, id, { lock: true });
      if (!current) throw AppError.notFound('Character');
      const images = await this.images.listForCharacter(tx, workspaceId, id);
      const owned = await this.files.keysOf(tx, workspaceId, id);
      releases = await this.files.releasesOf(tx, workspaceId, id);
      await this.characters.delete(tx, workspaceId, id);
      await this.audit.record(tx, { workspaceId, actorUserId: actor.userId, action: 'character.deleted', targetType: 'character', targetId: id, details: { name: current.name } });
      return [...images.map((i) => i.storageKey), ...owned];
    });
    await this.cloner.removeQuietly(keys);
    await Promise.all(releases.map((release) => release()));
  }
}
