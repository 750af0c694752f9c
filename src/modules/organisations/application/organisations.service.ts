import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId } from '../../../core/index.js';
import { inTransaction, isUniqueViolation, type Tx } from '../../../platform/database/index.js';
import { RateLimiter } from '../../../platform/rate-limit/index.js';
import { BillingFacade } from '../../billing/index.js';
import { AuditLog, type AuditEntry, type AuditQuery } from '../../audit/index.js';
import type { Organisation } from '../domain/organisation.js';
import { OrganisationsRepository } from '../infrastructure/organisations.repository.js';
import { BrandingService, asDomainTaken, type BrandingChanges, type BrandingView } from '../branding/index.js';
import { mfaRequirementProblem } from '../domain/mfa-requirement.js';
import { insufficientRole, OrganisationAccess } from './organisation-access.js';

export interface OrganisationChange {
  name?: string;
  slug?: string;
  branding?: BrandingChanges;
  requireMfa?: boolean;
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
    private readonly limiter: RateLimiter,
    private readonly billing: BillingFacade,
  ) {}

  list(userId: string): Promise<Organisation[]> {
    return this.repo.listForUser(userId);
  }

  /** A new Starter workspace with the Starter allocation; its creator is its owner. A slug follows PUT's rules (409 `slug_taken` when held). */
  async create(userId: string, name: string, slug?: string): Promise<Organisation> {
    const id = newId('ws');
    try {
      return await inTransaction(this.ds, async (tx) => {
        await this.repo.insertWorkspace(tx, { id, name, ownerId: userId });
        await this.billing.openFirstAllocation(tx, id);
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

  /**
   * Name, slug, branding and the two-factor requirement in one transaction, each audited; the
   * branding in the answer when it was given. A changed requirement moves the workspace's access
   * stamp after commit, so its sessions see it on their next request.
   */
  async update(workspaceId: string, userId: string, change: OrganisationChange): Promise<{ organisation: Organisation; branding?: BrandingView }> {
    const { branding, requireMfa, ...fields } = change;
    try {
      const updated = await inTransaction(this.ds, async (tx) => {
        const org = await this.access.require(workspaceId, userId, 'admin', tx);
        if (requireMfa !== undefined) await this.setRequireMfa(tx, org, userId, requireMfa);
        if (fields.name !== undefined || fields.slug !== undefined) {
          await this.repo.updateWorkspace(tx, workspaceId, fields);
          await this.audit.record(tx, { workspaceId, actorUserId: userId, action: 'workspace.updated', targetType: 'workspace', targetId: workspaceId, details: { ...fields } });
        }
        const brandingView = branding ? await this.branding.update(tx, workspaceId, userId, branding) : undefined;
        const organisation = (await this.repo.findForMember(workspaceId, userId, tx))!;
        return brandingView ? { organisation, branding: brandingView } : { organisation };
      });
      if (requireMfa !== undefined) await this.limiter.bumpAccessStamp(workspaceId);
      return updated;
    } catch (err) {
      if (isUniqueViolation(err, 'workspaces_slug_uq')) throw new AppError('slug_taken', 'Another organization has this slug.', { slug: change.slug });
      throw asDomainTaken(err, branding);
    }
  }

  private async setRequireMfa(tx: Tx, org: Organisation, userId: string, requireMfa: boolean): Promise<void> {
    const problem = mfaRequirementProblem(org.role, await this.repo.userHasMfa(tx, userId), requireMfa);
    if (problem === 'owner_only') throw insufficientRole('owner', org.role);
    if (problem === 'actor_without_mfa') {
      throw new AppError('mfa_required', 'Turn on two-factor sign-in for your own account (POST /auth/mfa/totp/setup) before requiring it of the members.');
    }
    if (org.requireMfa === requireMfa) return;
    await this.repo.setRequireMfa(tx, org.id, requireMfa);
    await this.audit.record(tx, { workspaceId: org.id, actorUserId: userId, action: 'workspace.updated', targetType: 'workspace', targetId: org.id, details: { require_mfa: requireMfa } });
  }

  async auditLog(workspaceId: string, userId: string, q: AuditQuery): Promise<{ entries: AuditEntry[]; nextBefore: string | null }> {
    await this.access.require(workspaceId, userId, 'admin');
    const entries = await this.audit.list(workspaceId, q);
    return { entries, nextBefore: entries.length === q.limit ? entries[entries.length - 1].id : null };
  }
}
