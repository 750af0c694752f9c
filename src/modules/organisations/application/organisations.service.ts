import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId } from '../../../core/index.js';
import { inTransaction, isUniqueViolation } from '../../../platform/database/index.js';
import { AuditLog, type AuditEntry, type AuditQuery } from '../../audit/index.js';
import type { Organisation } from '../domain/organisation.js';
import { OrganisationsRepository } from '../infrastructure/organisations.repository.js';
import { BrandingService, asDomainTaken, type BrandingChanges, type BrandingView } from '../branding/index.js';
import { OrganisationAccess } from './organisation-access.js';

export interface OrganisationChange {
  name?: string;
  slug?: string;
  branding?: BrandingChanges;
}

/** Organisations (workspaces) a user belongs to: listing, creating, renaming, and their audit log. */
@Injectable()
export class OrganisationsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: OrganisationsRepository,
    private readonly access: OrganisationAccess,
    private readonly audit: AuditLog,
    private readonly branding: BrandingService,
  ) {}

  list(userId: string): Promise<Organisation[]> {
    return this.repo.listForUser(userId);
  }

  /** A new Starter workspace with no credits; its creator is its owner. A slug follows PUT's rules (409 `slug_taken` when held). */
  async create(userId: string, name: string, slug?: string): Promise<Organisation> {
    const id = newId('ws');
    try {
      return await inTransaction(this.ds, async (tx) => {
        await this.repo.insertWorkspace(tx, { id, name, ownerId: userId });
        if (slug !== undefined) await this.repo.updateWorkspace(tx, id, { slug });
        await this.audit.record(tx, { workspaceId: id, actorUserId: userId, action: 'workspace.created', targetType: 'workspace', targetId: id, details: { name, ...(slug !== undefined ? { slug } : {}) } });
        return (await this.repo.findForMember(id, userId, tx))!;
      });
    } catch (err) {
      if (isUniqueViolation(err, 'workspaces_slug_uq')) throw new AppError('slug_taken', 'Another organization has this slug.', { slug });
      throw err;
    }
  }

  get(workspaceId: string, userId: string): Promise<Organisation> {
    return this.access.require(workspaceId, userId, 'viewer');
  }

  /** Name, slug and branding in one transaction, each audited; the branding in the answer when it was given. */
  async update(workspaceId: string, userId: string, change: OrganisationChange): Promise<{ organisation: Organisation; branding?: BrandingView }> {
    const { branding, ...fields } = change;
    try {
      return await inTransaction(this.ds, async (tx) => {
        await this.access.require(workspaceId, userId, 'admin', tx);
        if (fields.name !== undefined || fields.slug !== undefined) {
          await this.repo.updateWorkspace(tx, workspaceId, fields);
          await this.audit.record(tx, { workspaceId, actorUserId: userId, action: 'workspace.updated', targetType: 'workspace', targetId: workspaceId, details: { ...fields } });
        }
        const brandingView = branding ? await this.branding.update(tx, workspaceId, userId, branding) : undefined;
        const organisation = (await this.repo.findForMember(workspaceId, userId, tx))!;
        return brandingView ? { organisation, branding: brandingView } : { organisation };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'workspaces_slug_uq')) throw new AppError('slug_taken', 'Another organization has this slug.', { slug: change.slug });
      throw asDomainTaken(err, branding);
    }
  }

  async auditLog(workspaceId: string, userId: string, q: AuditQuery): Promise<{ entries: AuditEntry[]; nextBefore: string | null }> {
    await this.access.require(workspaceId, userId, 'admin');
    const entries = await this.audit.list(workspaceId, q);
    return { entries, nextBefore: entries.length === q.limit ? entries[entries.length - 1].id : null };
  }
}
