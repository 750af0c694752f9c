import { Injectable } from '@nestjs/common';
import { AppError, type Page, type PageRequest, type Plan } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { Workspace, WorkspaceWithOwner } from '../domain/accounts.js';
import { AccountsRepository } from '../infrastructure/accounts.repository.js';

/** What other contexts may ask of accounts: workspaces, their plan and their owners. */
@Injectable()
export class AccountsFacade {
  constructor(private readonly accounts: AccountsRepository) {}

  /** Throws `not_found` for an unknown workspace. */
  async getWorkspace(id: string, tx?: Tx): Promise<Workspace> {
    const ws = await this.accounts.getWorkspace(id, tx);
    if (!ws) throw AppError.notFound('Workspace');
    return ws;
  }

  /** Workspaces whose owner's email contains the text (case-insensitive); an empty text lists all. */
  findWorkspacesByOwnerEmail(emailFragment: string, page: PageRequest): Promise<Page<WorkspaceWithOwner>> {
    return this.accounts.findWorkspacesByOwnerEmail(emailFragment.trim(), page);
  }

  async setPlan(id: string, plan: Plan, tx?: Tx): Promise<Workspace> {
    const ws = await this.accounts.setPlan(id, plan, tx);
    if (!ws) throw AppError.notFound('Workspace');
    return ws;
  }
}
