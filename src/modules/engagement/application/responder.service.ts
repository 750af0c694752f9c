import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Caller } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { AuditLog } from '../../audit/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { patchedResponder, type ResponderPatch, type ResponderSettings } from '../domain/responder.js';
import { ResponderSettingsRepository } from '../infrastructure/responder-settings.repository.js';

/** A character's responder settings: read by viewers, changed by editors, every change audited. */
@Injectable()
export class ResponderService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly characters: CharactersFacade,
    private readonly settings: ResponderSettingsRepository,
    private readonly audit: AuditLog,
  ) {}

  async get(workspaceId: string, characterId: string): Promise<ResponderSettings> {
    await this.characters.get(workspaceId, characterId);
    return this.settings.get(workspaceId, characterId);
  }

  /** Applies `patch` under the settings' lock, so two editors' changes never undo each other's other fields. */
  async update(caller: Caller, characterId: string, patch: ResponderPatch): Promise<ResponderSettings> {
    return inTransaction(this.ds, async (tx) => {
      await this.characters.get(caller.workspaceId, characterId, tx);
      const current = await this.settings.lock(tx, caller.workspaceId, characterId);
      const saved = await this.settings.save(tx, caller.workspaceId, characterId, { ...patchedResponder(current, patch), updatedAt: null });
      await this.audit.record(tx, {
        workspaceId: caller.workspaceId,
        actorUserId: caller.userId,
        action: 'responder.updated',
        targetType: 'character',
        targetId: characterId,
        details: { enabled: saved.enabled, platforms_enabled: saved.platformsEnabled, mode: saved.mode, max_replies_per_hour: saved.maxRepliesPerHour, response_delay_seconds: saved.responseDelaySeconds },
      });
      return saved;
    });
  }
}
