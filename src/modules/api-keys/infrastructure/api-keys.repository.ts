import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import type { Plan, Role, WorkspaceRole } from '../../../core/index.js';
import { PreparedReads, type Tx } from '../../../platform/database/index.js';
import { ApiKeyEntity } from './api-key.entity.js';

/** What authentication needs about a live key, its workspace and its creator. */
export interface KeyHolder {
  keyId: string;
  workspaceId: string;
  userId: string;
  scopes: string[];
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  plan: Plan;
  role: Role;
  /** The creator's role in the key's workspace now. */
  memberRole: WorkspaceRole;
}

interface KeyHolderRow {
  id: string;
  workspace_id: string;
  user_id: string;
  scopes: string[];
  last_used_at: Date | null;
  expires_at: Date | null;
  plan: Plan;
  role: Role;
  member_role: WorkspaceRole;
}

// One indexed lookup (api_keys_hash_uq) joined to the plan, the creator and the creator's membership;
// hot on every public request. A key whose creator left the workspace finds no membership: it stops.
const HOLDER_BY_HASH = `
  SELECT k.id, k.workspace_id, k.user_id, k.scopes, k.last_used_at, k.expires_at, w.plan, u.role, m.role AS member_role
  FROM api_keys k
  JOIN workspaces w ON w.id = k.workspace_id
  JOIN users u ON u.id = k.user_id
  JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.user_id
  WHERE k.key_hash = $1
    AND k.revoked_at IS NULL
    AND (k.expires_at IS NULL OR k.expires_at > now())
    AND u.status = 'active'
  LIMIT 1`;

@Injectable()
export class ApiKeysRepository {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly rows: Repository<ApiKeyEntity>,
    private readonly prepared: PreparedReads,
  ) {}

  async insert(tx: Tx, key: ApiKeyEntity): Promise<void> {
    await tx.getRepository(ApiKeyEntity).insert(key);
  }

  /** The workspace's keys that still work, newest first. */
  async listLive(workspaceId: string): Promise<ApiKeyEntity[]> {
    return this.rows
      .createQueryBuilder('k')
      .where('k.workspace_id = :workspaceId', { workspaceId })
      .andWhere('k.revoked_at IS NULL')
      .andWhere('(k.expires_at IS NULL OR k.expires_at > now())')
      .orderBy('k.created_at', 'DESC')
      .addOrderBy('k.id', 'DESC')
      .getMany();
  }

  /** Marks the key revoked; false when the workspace has no such unrevoked key. */
  async revoke(tx: Tx, workspaceId: string, id: string, at: Date): Promise<boolean> {
    const result = await tx.getRepository(ApiKeyEntity).update({ id, workspaceId, revokedAt: IsNull() }, { revokedAt: at });
    return (result.affected ?? 0) > 0;
  }

  /**
   * The one lookup without a workspace id: the key is how the workspace is learned. Refuses
   * revoked and expired keys and disabled creators in the same query.
   */
  async findHolderByHash(keyHash: string): Promise<KeyHolder | null> {
    const rows = await this.prepared.rows<KeyHolderRow>('api_key_holder', HOLDER_BY_HASH, [keyHash]);
    const row = rows[0];
    if (!row) return null;
    return {
      keyId: row.id,
      workspaceId: row.workspace_id,
      userId: row.user_id,
      scopes: row.scopes,
      lastUsedAt: row.last_used_at,
      expiresAt: row.expires_at,
      plan: row.plan,
      role: row.role,
      memberRole: row.member_role,
    };
  }

  /** Records use, skipping the write when another request already did it within the resolution. */
  async touchLastUsed(workspaceId: string, id: string, at: Date, resolutionMs: number): Promise<void> {
    const staleBefore = new Date(at.getTime() - resolutionMs);
    await this.rows
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ lastUsedAt: at })
      .where('id = :id AND workspace_id = :workspaceId', { id, workspaceId })
      .andWhere('(last_used_at IS NULL OR last_used_at < :staleBefore)', { staleBefore })
      .execute();
  }
}
