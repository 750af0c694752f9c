import { Injectable, Logger } from '@nestjs/common';
import { apiKeyRole, type Caller, type Scope } from '../../../core/index.js';
import { hashApiKey, looksLikeApiKey } from '../domain/api-key-secret.js';
import { LAST_USED_RESOLUTION_MS, needsUsageTouch } from '../domain/api-key-rules.js';
import { ApiKeysRepository, type KeyHolder } from '../infrastructure/api-keys.repository.js';

/** Past this many remembered keys the in-process touch memory is simply dropped. */
const MAX_REMEMBERED_TOUCHES = 10_000;

/**
 * Resolves `psk_` keys for the API key strategy: one query per request, no cache, so a revoked key
 * stops at once on every instance. `last_used_at` is refreshed at most once a minute per key,
 * after the answer is on its way.
 */
@Injectable()
export class DatabaseApiKeyAuthenticator {
  private readonly logger = new Logger('ApiKeys');
  /** When this process last asked for a key's touch, so a burst costs one write, not one per request. */
  private readonly touchedAt = new Map<string, number>();

  constructor(private readonly keys: ApiKeysRepository) {}

  /** The key's caller, or null when it is unknown, expired or revoked. */
  async authenticate(key: string): Promise<Caller | null> {
    if (!looksLikeApiKey(key)) return null;
    const holder = await this.keys.findHolderByHash(hashApiKey(key));
    if (!holder) return null;
    this.recordUse(holder, new Date());
    return {
      kind: 'api_key',
      userId: holder.userId,
      workspaceId: holder.workspaceId,
      role: holder.role,
      workspaceRole: apiKeyRole(holder.memberRole),
      plan: holder.plan,
      scopes: holder.scopes as Scope[],
      apiKeyId: holder.keyId,
    };
  }

  private recordUse(holder: KeyHolder, now: Date): void {
    if (!needsUsageTouch(holder.lastUsedAt, now)) return;
    const asked = this.touchedAt.get(holder.keyId);
    if (asked !== undefined && now.getTime() - asked < LAST_USED_RESOLUTION_MS) return;
    if (this.touchedAt.size >= MAX_REMEMBERED_TOUCHES) this.touchedAt.clear();
    this.touchedAt.set(holder.keyId, now.getTime());
    this.keys.touchLastUsed(holder.workspaceId, holder.keyId, now, LAST_USED_RESOLUTION_MS).catch((err: unknown) => {
      this.touchedAt.delete(holder.keyId);
      this.logger.error({ msg: 'could not record API key use', api_key_id: holder.keyId, err: String(err) });
    });
  }
}
