import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId } from '../../../core/index.js';
import { inTransaction, isUniqueViolation } from '../../../platform/database/index.js';
import { AuditLog, type AuditEntry, type AuditQuery } from '../../audit/index.js';
import type { Organisation } from '../domain/organisation.js';
import { OrganisationsRepository } from '../infrastructure/organisations.repository.js';
import { OrganisationAccess } from './organisation-access.js';

export interface OrganisationChange {
  name?: string;
  slug?: string;
  // BRANDING: the lead wires `branding` in here at merge (BrandingService of the branding helper).
}

/** Organisations (workspaces) a user belongs to: listing, creating, renaming, and their audit log. */
@Injectable()
export class OrganisationsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: OrganisationsRepository,
    private readonly access: OrganisationAccess,
    private readonly audit: AuditLog,
  ) {}

  list(userId: string): Promise<Organisation[]> {
    return this.repo.listForUser(userId);
  }

  /** A new Starter workspace with no credits; its creator is its owner. */
  async create(userId: string, name: string): Promise<Organisation> {
    const id = newId('ws');
    return inTransaction(this.ds, async (tx) => {
      await this.repo.insertWorkspace(tx, { id, name, ownerId: userId });
      await this.audit.record(tx, { workspaceId: id, actorUserId: userId, action: 'workspace.created', targetType: 'workspace', targetId: id, details: { name } });
      return (await this.repo.findForMember(id, userId, tx))!;
    });
  }

  get(workspaceId: string, userId: string): Promise<Organisation> {
    return this.access.require(workspaceId, userId, 'viewer');
  }

  async update(workspaceId: string, userId: string, change: OrganisationChange): Promise<Organisation> {
    try {
      return await inTransaction(this.ds, async (tx) => {
        await this.access.require(workspaceId, userId, 'admin', tx);
        await this.repo.updateWorkspace(tx, workspaceId, change);
        await this.audit.record(tx, { workspaceId, actorUserId: userId, action: 'workspace.updated', targetType: 'workspace', targetId: workspaceId, details: { ...change } });
        return (await this.repo.findForMember(workspaceId, userId, tx))!;
      });
    } catch (err) {
      if (isUniqueViolation(err, 'workspaces_slug_uq')) throw new AppError('slug_taken', 'Another organization has this slug.', { slug: change.slug });
      throw err;
    }
  }

  async auditLog(workspaceId: string, userId: string, q: AuditQuery): Promise<{ entries: AuditEntry[]; nextBefore: string | null }> {
    await this.access.require(workspaceId, userId, 'admin');
    const entries = await this.audit.list(workspaceId, q);
    return { entries, nextBefore: entries.length === q.limit ? entries[entries.length - 1].id : null };
  }
}
