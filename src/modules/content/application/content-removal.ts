import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, type Caller } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { Storage } from '../../../platform/storage/index.js';
import { AuditLog } from '../../audit/index.js';
import { CharacterFiles } from '../../characters/index.js';
import { mediaKeysOf } from '../domain/content-item.js';
import { ContentItemRepository } from '../infrastructure/content-item.repository.js';

/** Statuses whose job may still write files: deleting then would leave them behind. */
const BUSY = new Set(['queued', 'generating']);

/**
 * Deleting content and its files. The rows go in one transaction; the files once it committed and
 * before the answer (best effort, a failure logged, the object left as an orphan). Deleting a
 * character removes its items' files through the same keys (registered with CharacterFiles).
 */
@Injectable()
export class ContentRemoval implements OnModuleInit {
  private readonly logger = new Logger('Content');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly items: ContentItemRepository,
    private readonly storage: Storage,
    private readonly characterFiles: CharacterFiles,
    private readonly audit: AuditLog,
  ) {}

  onModuleInit(): void {
    this.characterFiles.register({ keysOf: (tx, workspaceId, characterId) => this.items.mediaKeysOfCharacter(tx, workspaceId, characterId) });
  }

  /** Deletes an item (its posts go with it) and its files; 409 while its job may still write some. */
  async delete(actor: Pick<Caller, 'workspaceId' | 'userId'>, id: string): Promise<void> {
    const { workspaceId } = actor;
    const keys = await inTransaction(this.ds, async (tx) => {
      const item = await this.items.find(tx, workspaceId, id, { lock: true });
      if (!item) throw AppError.notFound('Content item');
      if (BUSY.has(item.status)) throw AppError.invalidTransition(item.status, 'delete');
      await this.items.delete(tx, workspaceId, id);
      const details = { character_id: item.characterId, status: item.status, type: item.contentType, platform: item.platform };
      await this.audit.record(tx, { workspaceId, actorUserId: actor.userId, action: 'content.deleted', targetType: 'content', targetId: id, details });
      return mediaKeysOf(item.media);
    });
    await this.removeFiles(keys);
  }

  private async removeFiles(keys: string[]): Promise<void> {
    for (const key of keys) {
      await this.storage.delete(key).catch((err: unknown) => this.logger.warn({ msg: 'could not remove stored object', key, err: String(err) }));
    }
  }
}
