import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId, type Caller, type Scope } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { issueApiKeySecret } from '../domain/api-key-secret.js';
import { expiryProblem, scopeListProblem } from '../domain/api-key-rules.js';
import { ApiKeyEntity } from '../infrastructure/api-key.entity.js';
import { ApiKeysRepository } from '../infrastructure/api-keys.repository.js';
import { AuditLog } from '../../audit/index.js';
import type { ApiKeyView, IssuedApiKey, NewApiKey } from './api-key.view.js';

/** Issuing, listing and revoking a workspace's API keys. The plan check lives on the route. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly limiter: RateLimiter,
    private readonly audit: AuditLog,
    @InjectDataSource() private readonly ds: DataSource,
  ) {}

  async create(caller: Caller, input: NewApiKey): Promise<IssuedApiKey> {
    const now = new Date();
    assertValid(input, now);
    const issued = issueApiKeySecret();
    const row = Object.assign(new ApiKeyEntity(), {
      id: newId('key'),
      workspaceId: caller.workspaceId,
      userId: caller.userId,
      name: input.name,
      prefix: issued.prefix,
      keyHash: issued.hash,
      scopes: [...input.scopes],
      createdAt: now,
      lastUsedAt: null,
      expiresAt: input.expiresAt ?? null,
      revokedAt: null,
    });
    await inTransaction(this.ds, async (tx) => {
      await this.keys.insert(tx, row);
      await this.audit.record(tx, {
        workspaceId: caller.workspaceId,
        actorUserId: caller.userId,
        action: 'api_key.created',
        targetType: 'api_key',
        targetId: row.id,
        details: { name: row.name, scopes: row.scopes },
      });
    });
    return { apiKey: toView(row), secret: issued.secret };
  }

  async list(workspaceId: string): Promise<ApiKeyView[]> {
    const rows = await this.keys.listLive(workspaceId);
    return rows.map(toView);
  }

  /**
   * Revocation is immediate: the workspace's access stamp moves after the row is written, so the
   * key's remembered check is dropped on its next request and sockets held open with it are checked
   * again (and closed) at once, on every instance.
   */
  async revoke(caller: Caller, id: string): Promise<void> {
    const { workspaceId } = caller;
    await inTransaction(this.ds, async (tx) => {
      const revoked = await this.keys.revoke(tx, workspaceId, id, new Date());
      if (!revoked) throw AppError.notFound('API key');
      await this.audit.record(tx, { workspaceId, actorUserId: caller.userId, action: 'api_key.revoked', targetType: 'api_key', targetId: id });
    });
    await this.limiter.bumpAccessStamp(workspaceId);
  }
}

/** The DTO already checks these; repeated here so the service is safe whoever calls it. */
function assertValid(input: NewApiKey, now: Date): void {
  const problems: Array<{ field: string; message: string }> = [];
  const name = input.name.trim();
  if (name.length < 1 || name.length > 80) problems.push({ field: 'name', message: 'name must be 1 to 80 characters' });
  const scopes = scopeListProblem(input.scopes);
  if (scopes) problems.push({ field: 'scopes', message: scopes });
  const expiry = input.expiresAt === undefined ? null : expiryProblem(input.expiresAt.toISOString(), now);
  if (expiry) problems.push({ field: 'expires_at', message: expiry });
  if (problems.length > 0) throw new AppError('validation_failed', problems[0].message, problems);
}

function toView(row: ApiKeyEntity): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes as Scope[],
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    expiresAt: row.expiresAt,
  };
}
