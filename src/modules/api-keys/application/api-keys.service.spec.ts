import { describe, expect, it } from '@jest/globals';
import { AppError, isId, type Caller } from '../../../core/index.js';
import { hashApiKey } from '../domain/api-key-secret.js';
import type { ApiKeyEntity } from '../infrastructure/api-key.entity.js';
import type { ApiKeysRepository } from '../infrastructure/api-keys.repository.js';
import type { RateLimiter } from '../../../platform/rate-limit/index.js';
import type { DataSource } from 'typeorm';
import type { AuditLog, AuditRecord } from '../../audit/index.js';
import { ApiKeysService } from './api-keys.service.js';

class FakeKeys {
  rows: ApiKeyEntity[] = [];
  async insert(_tx: unknown, row: ApiKeyEntity) {
    this.rows.push({ ...row });
  }
  async listLive(workspaceId: string) {
    return this.rows.filter((r) => r.workspaceId === workspaceId && !r.revokedAt).reverse();
  }
  async revoke(_tx: unknown, workspaceId: string, id: string, at: Date) {
    const row = this.rows.find((r) => r.id === id && r.workspaceId === workspaceId && !r.revokedAt);
    if (row) row.revokedAt = at;
    return row !== undefined;
  }
}

const caller: Caller = { kind: 'session', userId: 'user_1', workspaceId: 'ws_1', role: 'user', workspaceRole: 'owner', plan: 'agency', scopes: [] };

/** The access stamp moves the service asks for, by workspace. */
class FakeLimiter {
  bumped: string[] = [];
  async bumpAccessStamp(workspaceId: string) {
    this.bumped.push(workspaceId);
  }
}

/** Entries as the audit log would commit them: kept only when the transaction's work succeeds. */
class FakeAudit {
  entries: AuditRecord[] = [];
  pending: AuditRecord[] = [];
  async record(_tx: unknown, r: AuditRecord) {
    this.pending.push(r);
  }
}

function fakeDataSource(audit: FakeAudit) {
  return {
    async transaction<T>(work: (tx: unknown) => Promise<T>): Promise<T> {
      audit.pending = [];
      const out = await work({});
      audit.entries.push(...audit.pending);
      return out;
    },
  };
}

function setup() {
  const keys = new FakeKeys();
  const limiter = new FakeLimiter();
  const audit = new FakeAudit();
  const service = new ApiKeysService(
    keys as unknown as ApiKeysRepository,
    limiter as unknown as RateLimiter,
    audit as unknown as AuditLog,
    fakeDataSource(audit) as unknown as DataSource,
  );
  return { keys, limiter, audit, service };
}

const inOther: Caller = { ...caller, workspaceId: 'ws_other' };

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return err instanceof AppError ? err.code : 'not an AppError';
  }
}

describe('ApiKeysService', () => {
  it('stores only the hash and answers the secret once', async () => {
    const { keys, service } = setup();
    const issued = await service.create(caller, { name: 'CRM', scopes: ['credits:read'] });
    expect(isId('key', issued.apiKey.id)).toBe(true);
    expect(issued.secret.startsWith(issued.apiKey.prefix)).toBe(true);
    const [row] = keys.rows;
    expect(row.keyHash).toBe(hashApiKey(issued.secret));
    expect(JSON.stringify(row)).not.toContain(issued.secret);
    expect(row).toMatchObject({ workspaceId: 'ws_1', userId: 'user_1', scopes: ['credits:read'], expiresAt: null });
    const [listed] = await service.list('ws_1');
    expect(JSON.stringify(listed)).not.toContain(issued.secret);
    expect(listed).not.toHaveProperty('keyHash');
  });

  it('refuses bad input even when called without the DTO', async () => {
    const { keys, service } = setup();
    expect(await codeOf(service.create(caller, { name: ' ', scopes: ['credits:read'] }))).toBe('validation_failed');
    expect(await codeOf(service.create(caller, { name: 'x', scopes: [] }))).toBe('validation_failed');
    const past = new Date(Date.now() - 1000);
    expect(await codeOf(service.create(caller, { name: 'x', scopes: ['credits:read'], expiresAt: past }))).toBe('validation_failed');
    expect(keys.rows).toHaveLength(0);
  });

  it('revokes a key of the workspace and answers 404 for another workspace or a second revoke', async () => {
    const { service } = setup();
    const issued = await service.create(caller, { name: 'CRM', scopes: ['credits:read'] });
    expect(await codeOf(service.revoke(inOther, issued.apiKey.id))).toBe('not_found');
    expect(await service.list('ws_1')).toHaveLength(1);
    await service.revoke(caller, issued.apiKey.id);
    expect(await service.list('ws_1')).toHaveLength(0);
    expect(await codeOf(service.revoke(caller, issued.apiKey.id))).toBe('not_found');
  });

  it('moves the workspace access stamp after a revocation, so sockets held with the key are checked again', async () => {
    const { service, limiter } = setup();
    const issued = await service.create(caller, { name: 'CRM', scopes: ['content:read'] });
    await codeOf(service.revoke(inOther, issued.apiKey.id));
    expect(limiter.bumped).toEqual([]);
    await service.revoke(caller, issued.apiKey.id);
    expect(limiter.bumped).toEqual(['ws_1']);
  });

  it('records one entry for a creation and one for a revocation, with the name and scopes but never the secret', async () => {
    const { service, audit } = setup();
    const issued = await service.create(caller, { name: 'CRM', scopes: ['credits:read'] });
    await codeOf(service.create(caller, { name: ' ', scopes: ['credits:read'] }));
    await codeOf(service.revoke(inOther, issued.apiKey.id));
    await service.revoke(caller, issued.apiKey.id);
    expect(audit.entries).toEqual([
      { workspaceId: 'ws_1', actorUserId: 'user_1', action: 'api_key.created', targetType: 'api_key', targetId: issued.apiKey.id, details: { name: 'CRM', scopes: ['credits:read'] } },
      { workspaceId: 'ws_1', actorUserId: 'user_1', action: 'api_key.revoked', targetType: 'api_key', targetId: issued.apiKey.id },
    ]);
    expect(JSON.stringify(audit.entries)).not.toContain(issued.secret);
  });
});
