import { Injectable } from '@nestjs/common';
import { AppError, roleAtLeast, type WorkspaceRole } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { Organisation } from '../domain/organisation.js';
import { OrganisationsRepository } from '../infrastructure/organisations.repository.js';

/**
 * The caller's role in the workspace a path names, which need not be their token's workspace: the
 * route's `@MinRole` checks the token's workspace, this checks the one being acted on. Not a member
 * reads as a missing workspace (404), a member below `min` as `insufficient_role`.
 */
@Injectable()
export class OrganisationAccess {
  constructor(private readonly repo: OrganisationsRepository) {}

  async require(workspaceId: string, userId: string, min: WorkspaceRole, tx?: Tx): Promise<Organisation> {
    const org = await this.repo.findForMember(workspaceId, userId, tx);
    if (!org) throw AppError.notFound('Organization');
    if (!roleAtLeast(org.role, min)) throw insufficientRole(min, org.role);
    return org;
  }
}

export function insufficientRole(required: WorkspaceRole, held: WorkspaceRole): AppError {
  return new AppError('insufficient_role', `This needs the ${required} role in the workspace; yours is ${held}.`, { required });
}
