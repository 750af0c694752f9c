import { Injectable, Logger } from '@nestjs/common';
import { apiKeyRole, type Caller, type Scope } from '../../../core/index.js';
import { CredentialMemory, type Authenticated } from '../../../platform/auth/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { hashApiKey, looksLikeApiKey } from '../domain/api-key-secret.js';
import { LAST_USED_RESOLUTION_MS, needsUsageTouch } from '../domain/api-key-rules.js';
import { ApiKeysRepository, type KeyHolder } from '../infrastructure/api-keys.repository.js';

/** Past this many remembered keys the in-process touch memory is simply dropped. */
const MAX_REMEMBERED_TOUCHES = 10_000;

/**
 * Resolves `psk_` keys for the API key strategies. A key's verified holder is remembered by the key's
 * hash under its workspace's access stamp (`CredentialMemory`), which revoking a key, removing its
 * creator from the workspace, changing their role or the plan all move: the request's rate-limit
 * count reads the stamp in the same Redis round trip, so a remembered key costs no query, and a
 * revoked one is refused on its next request on every instance. A key not yet remembered is read,
 * then confirmed under the stamp on its next request (its workspace is known only from the row).
 * `last_used_at` is refreshed at most once a minute per key, after the answer is on its way.
 */
@Injectable()
export class DatabaseApiKeyAuthenticator {
  private readonly logger = new Logger('ApiKeys');
  /** When a key was last used as far as this process knows (read, or a touch it asked for): a burst costs one write, not one per request. */
  private readonly touchedAt = new Map<string, number>();
  /** Verified callers by key hash. */
  private readonly remembered = new CredentialMemory<Caller>();

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly limiter: RateLimiter,
  ) {}

  /**
   * The key's caller, its request counted against the workspace's window (`hits`), or null when the
   * key is unknown, expired or revoked. An unknown key counts nothing: it names no workspace.
   */
  async authenticate(key: string, nowMs: number = Date.now()): Promise<Authenticated | null> {
    if (!looksLikeApiKey(key)) return null;
    const hash = hashApiKey(key);
    const workspaceId = this.remembered.workspaceOf(hash);
    if (workspaceId === undefined) {
      // Not remembered: its workspace is known only from the row, so it is remembered unconfirmed.
      const caller = await this.readAndRemember(hash, nowMs, null);
      return caller && { caller, hits: (await this.limiter.hitWorkspace(caller.workspaceId)).count };
    }
    const { count: hits, stamp } = await this.limiter.hitWorkspace(workspaceId);
    const known = this.remembered.recall(hash, stamp, nowMs);
    if (known) {
      this.recordUse(known.apiKeyId!, workspaceId, null, new Date(nowMs));
      return { caller: { ...known }, hits };
    }
    const caller = await this.readAndRemember(hash, nowMs, { workspaceId, stamp });
    return caller && { caller, hits };
  }

  /**
   * The key read and remembered: under the stamp this request read for the workspace it was
   * remembered in (`under`), or unconfirmed (null). A key that is gone, or now names another
   * workspace, is forgotten.
   */
  private async readAndRemember(hash: string, nowMs: number, under: { workspaceId: string; stamp: string | null } | null): Promise<Caller | null> {
    const holder = await this.read(hash, nowMs);
    if (!holder || (under !== null && holder.workspaceId !== under.workspaceId)) {
      this.remembered.forget(hash);
      return null;
    }
    const caller = callerOf(holder);
    this.remembered.remember(hash, { ...caller }, holder.workspaceId, under?.stamp ?? null, validUntil(holder), nowMs);
    return caller;
  }

  /** The key's caller read afresh, counting no request: for a socket held open with it. */
  async recheck(key: string): Promise<Caller | null> {
    if (!looksLikeApiKey(key)) return null;
    const holder = await this.read(hashApiKey(key), Date.now());
    return holder && callerOf(holder);
  }

  private async read(hash: string, nowMs: number): Promise<KeyHolder | null> {
    const holder = await this.keys.findHolderByHash(hash);
    if (holder) this.recordUse(holder.keyId, holder.workspaceId, holder.lastUsedAt, new Date(nowMs));
    return holder;
  }

  /**
   * Asks for `last_used_at` to be written when neither the row as read (`lastUsedAt`, null when this
   * request did not read it) nor this process's last write is within the resolution.
   */
  private recordUse(keyId: string, workspaceId: string, lastUsedAt: Date | null, now: Date): void {
    const asked = this.touchedAt.get(keyId);
    if (asked !== undefined && now.getTime() - asked < LAST_USED_RESOLUTION_MS) return;
    if (lastUsedAt !== null && !needsUsageTouch(lastUsedAt, now)) {
      this.noteTouch(keyId, lastUsedAt.getTime());
      return;
    }
    this.noteTouch(keyId, now.getTime());
    this.keys.touchLastUsed(workspaceId, keyId, now, LAST_USED_RESOLUTION_MS).catch((err: unknown) => {
      this.touchedAt.delete(keyId);
      this.logger.error({ msg: 'could not record API key use', api_key_id: keyId, err: String(err) });
    });
  }

  private noteTouch(keyId: string, atMs: number): void {
    if (this.touchedAt.size >= MAX_REMEMBERED_TOUCHES) this.touchedAt.clear();
    this.touchedAt.set(keyId, atMs);
  }
}

function callerOf(holder: KeyHolder): Caller {
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

function validUntil(holder: KeyHolder): number {
  return holder.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
}
