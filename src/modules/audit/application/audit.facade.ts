import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { newId } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { currentRequestId } from '../../../platform/http/index.js';
import type { AuditEntry, AuditRecord } from '../domain/audit-entry.js';
import { AuditRepository, type AuditQuery } from '../infrastructure/audit.repository.js';

/**
 * The audit log as other contexts use it. `record` takes the transaction of the change it records:
 * the entry commits with the change or not at all. The request id is the current HTTP request's.
 */
@Injectable()
export class AuditLog {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: AuditRepository,
  ) {}

  async record(tx: Tx, r: AuditRecord): Promise<void> {
    await this.repo.append(tx, {
      id: newId('log'),
      workspaceId: r.workspaceId,
      actorUserId: r.actorUserId,
      action: r.action,
      targetType: r.targetType,
      targetId: r.targetId,
      details: r.details ?? {},
      requestId: currentRequestId(),
    });
  }

  list(workspaceId: string, q: AuditQuery): Promise<AuditEntry[]> {
    return this.repo.list(this.ds.manager, workspaceId, q);
  }
}
